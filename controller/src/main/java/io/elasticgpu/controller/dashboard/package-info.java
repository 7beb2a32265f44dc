/**
 * The dashboard every controller replica serves: {@code /ui} (plain HTML, CSS and JavaScript from the jar, no build
 * step), the cluster view it draws as JSON at {@code /api/v1/cluster}, {@code /metrics} and {@code /healthz}. It reads
 * nodes and pods through its own informers, so a replica that is not the leader serves it too; it never writes.
 */
package io.elasticgpu.controller.dashboard;
