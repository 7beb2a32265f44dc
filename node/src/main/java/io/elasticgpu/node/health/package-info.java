/**
 * Decides whether each card is healthy from the driver's events: critical Xids and double-bit ECC errors make a
 * card unhealthy at once; a quiet period with the driver answering again makes it healthy again. It owns that
 * decision only and must never import gRPC or Kubernetes types.
 */
package io.elasticgpu.node.health;
