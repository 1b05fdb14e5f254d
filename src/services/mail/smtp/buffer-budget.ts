/**
 * The bytes of SMTP messages held in memory at once, across every connection of the listener
 * (issue 40). A message is buffered whole between its DATA and its delivery, up to SIZE
 * (35,882,577 bytes); without a shared bound, 256 connections each sending a large body would
 * hold about 9 GB. Each DATA draws its bytes from this budget as they arrive; a message that
 * finds no room is dropped as it comes (what it held is given back at once, the rest is read and
 * discarded) and refused at its end with a temporary 452 4.3.1, as a server out of spool space
 * answers (RFC 5321 §4.2.2, RFC 3463 X.3.1 "Mail system full"), so the client tries again later.
 */

/** BufferBudget is the listener's budget: `capacity` bytes shared by every message in flight. */
export class BufferBudget {
  #inUse = 0;

  constructor(readonly capacity: number) {}

  /** inUse is the bytes held now by every message being received or delivered. */
  get inUse(): number {
    return this.#inUse;
  }

  /** free is what a new message could still hold. */
  get free(): number {
    return this.capacity - this.#inUse;
  }

  /** open starts one message's share of the budget; release it when the message is delivered or refused. */
  open(): BufferShare {
    return new BufferShare(this);
  }

  /** @internal take reserves `bytes` when they fit. */
  take(bytes: number): boolean {
    if (this.#inUse + bytes > this.capacity) return false;
    this.#inUse += bytes;
    return true;
  }

  /** @internal give returns `bytes`. */
  give(bytes: number): void {
    this.#inUse -= bytes;
  }
}

/** BufferShare is what one message holds of the budget. */
export class BufferShare {
  #held = 0;

  constructor(private readonly budget: BufferBudget) {}

  /** take holds `bytes` more for this message, or answers false (nothing taken) when they do not fit. */
  take(bytes: number): boolean {
    if (!this.budget.take(bytes)) return false;
    this.#held += bytes;
    return true;
  }

  /** release gives back everything this message holds (again is harmless). */
  release(): void {
    this.budget.give(this.#held);
    this.#held = 0;
  }
}
