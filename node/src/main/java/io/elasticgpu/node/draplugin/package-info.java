/**
 * kubelet's DRA gRPC API v1 ({@code DRAPlugin}: NodePrepareResources, NodeUnprepareResources) and plugin registration
 * v1 ({@code Registration}, type {@code DRAPlugin}) over unix sockets. It only translates between the wire and
 * {@link io.elasticgpu.node.dra.ClaimPreparation}; it must never read the API server or decide anything itself.
 */
package io.elasticgpu.node.draplugin;
