/**
 * The placement engine's vocabulary: cards, the links between them, nodes, requests and placements, all immutable
 * records that validate themselves, and the table of card models' TFLOPS read from text. It must never import
 * Kubernetes types or anything outside the JDK, nor read files (callers hand it text).
 */
package io.elasticgpu.core.model;
