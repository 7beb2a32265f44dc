/**
 * Replaying a trace through the placement engine exactly as the FGD paper's protocol does: the seeded arrival
 * order and 130 % inflation, the seeded node priority, one pod at a time, arrival only; and replaying a recorded
 * run's order to check our decisions against it. It produces event logs and must never format output.
 */
package io.elasticgpu.simulator.replay;
