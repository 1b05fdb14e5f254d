/** The workload simulation's settings (`--nodes`, `--pod-ready-delay`, `--job-duration`), resolved from the family's options. */
export interface SimulationSettings {
  /** How many fake Nodes to keep. */
  readonly nodes: number;
  /** How long a bound Pod takes to be Running and Ready, in milliseconds of fogbank's clock. */
  readonly podReadyDelayMs: number;
  /** How long a Job's Pod runs before it completes, in milliseconds of fogbank's clock. */
  readonly jobDurationMs: number;
}
