/**
 * UpstreamSlots bounds how many exchanges wait on the upstream at once, and how many wait for
 * their turn behind them. A slot is held from the moment a request is sent upstream until the
 * upstream's answer head arrives (or the exchange ends): a streamed answer (an event stream, a
 * long download) gives its slot back as soon as its head is in, so it never holds others up, and
 * the upstream sockets themselves are not pooled against each other (each exchange has its own).
 * Past the queue's bound a request is refused at once (the guard answers 503) instead of waiting.
 */
export class UpstreamSlots {
  private active = 0;
  private readonly waiting: Ticket[] = [];

  constructor(
    /** capacity is how many exchanges may wait on the upstream's answer at once. */
    readonly capacity: number,
    /** queueLimit is how many more may wait for a slot. */
    readonly queueLimit: number,
  ) {}

  /** busy is the number of slots held, and queued the number waiting for one. */
  get busy(): number {
    return this.active;
  }
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * acquire calls `start` once a slot is free (at once when one is), and answers the ticket to give
   * it back with; undefined when the queue is full (`start` is then never called).
   */
  acquire(start: () => void): Ticket | undefined {
    if (this.active < this.capacity) {
      this.active++;
      const ticket = new Ticket(this, start, true);
      start();
      return ticket;
    }
    if (this.waiting.length >= this.queueLimit) return undefined;
    const ticket = new Ticket(this, start, false);
    this.waiting.push(ticket);
    return ticket;
  }

  /** settle takes a ticket out: its slot goes to the next in line, or it leaves the line. */
  settle(ticket: Ticket, holding: boolean): void {
    if (!holding) {
      const at = this.waiting.indexOf(ticket);
      if (at !== -1) this.waiting.splice(at, 1);
      return;
    }
    this.active--;
    while (this.active < this.capacity) {
      const next = this.waiting.shift();
      if (next === undefined) return;
      this.active++;
      next.grant();
    }
  }
}

/** Ticket is one request's place: a slot it holds, or a place in the line. */
export class Ticket {
  private done = false;

  constructor(
    private readonly slots: UpstreamSlots,
    private readonly start: () => void,
    private holding: boolean,
  ) {}

  /** grant hands the ticket its slot and starts its exchange. */
  grant(): void {
    this.holding = true;
    this.start();
  }

  /** release gives the slot (or the place in line) back; a second call does nothing. */
  release(): void {
    if (this.done) return;
    this.done = true;
    this.slots.settle(this, this.holding);
  }
}
