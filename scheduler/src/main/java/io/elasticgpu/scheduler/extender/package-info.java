/**
 * The kube-scheduler extender protocol over HTTP ({@code k8s.io/kube-scheduler/extender/v1}: filter, prioritize,
 * bind), health, readiness and Prometheus metrics, the extender's configuration, and the wiring of cache, decisions
 * and binding. Handlers decode, call, encode: no placement logic lives here.
 */
package io.elasticgpu.scheduler.extender;
