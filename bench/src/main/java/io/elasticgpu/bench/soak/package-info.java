/**
 * {@code bench/run soak}: churn on the real control plane (pods of the openb trace's shapes coming and going, the
 * cluster kept 80-100 % full) while a seeded schedule kills and restarts components, changes and deletes nodes and
 * sends bursts; an auditor that reads only the API checks the invariants throughout and after a final drain.
 */
package io.elasticgpu.bench.soak;
