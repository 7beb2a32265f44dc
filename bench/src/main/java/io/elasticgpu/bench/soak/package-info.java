/**
 * The soaks. {@code bench/run soak}: churn on the real control plane (pods of the openb trace's shapes coming and
 * going, some through ElasticGPUClaims and the webhook, the cluster kept 80-100 % full) while a seeded schedule kills
 * and restarts components, changes and deletes nodes and sends bursts; an auditor that reads only the API checks the
 * invariants throughout and after a final drain. {@code bench/run node-soak} ({@code Node*}): pods admitted one by
 * one on one node by kubelet's own device manager and the agent as a process, with kubelet restarts, agent SIGKILLs,
 * plugin sockets deleted and Xid storms, audited from what containers were told, the pods' records and the agent's
 * ledger. Both report a {@link io.elasticgpu.bench.soak.SoakResult}.
 */
package io.elasticgpu.bench.soak;
