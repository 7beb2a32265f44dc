package io.elasticgpu.controller.view;

/**
 * Something in the cluster's annotations the view could not take at face value, e.g. {@code pod ml/train-3}: its
 * allocation is not valid JSON. A pod with a problem is counted nowhere else.
 */
public record Problem(String object, String reason) {}
