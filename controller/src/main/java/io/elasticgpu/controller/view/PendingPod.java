package io.elasticgpu.controller.view;

/** A pod that asks GPUs and is not bound to a node yet. */
public record PendingPod(String namespace, String pod) {}
