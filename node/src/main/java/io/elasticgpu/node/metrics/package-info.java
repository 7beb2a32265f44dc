/**
 * The node agent's Prometheus metrics and the small HTTP server that exposes them: Allocate calls by resource and
 * outcome, cards by health, plugins registered with kubelet, and what each card holds. Metrics read the agent's
 * state at scrape time or are recorded by decorators around its allocator and its truth reconciliation; nothing
 * in allocation or the device plugins knows about them.
 */
package io.elasticgpu.node.metrics;
