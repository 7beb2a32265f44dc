/**
 * How every Elastic GPU component serves HTTP (extender, node agent metrics, controller dashboard and webhook, the
 * benchmarks' echo extender): {@link io.elasticgpu.http.HttpEndpoint} routes by method and exact path, bounds
 * request bodies, answers a caller's mistake with a 4xx that says what to change ({@link
 * io.elasticgpu.http.BadRequest}) and keeps 500 for our own bugs, and serves Prometheus metrics through the
 * prometheus-metrics library's handler. Imports only the JDK, SLF4J and prometheus-metrics.
 */
package io.elasticgpu.http;
