/**
 * Reading workloads: the Alibaba {@code openb} node and pod lists from any path, with errors that name the file,
 * line and column, and the built-in synthetic cluster used when no trace is given. It turns rows into core model
 * types and must never import replay or report code.
 */
package io.elasticgpu.simulator.trace;
