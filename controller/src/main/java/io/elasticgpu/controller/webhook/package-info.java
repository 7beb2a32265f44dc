/**
 * The mutating admission webhook: pods annotated {@code elasticgpu.io/egpuc-<container>: <claim>} get that
 * ElasticGPUClaim's GPU requests as their container's limits and requests, and pods asking GPU slices that the node
 * agents cannot hold to their shares (a bad {@code elasticgpu.io/gpu-processes}, or a share CUDA MPS cannot divide
 * among that many processes) are refused, over HTTPS with a self-made CA and a rotating serving certificate,
 * registered as the {@code elastic-gpu} MutatingWebhookConfiguration. Decisions
 * ({@link io.elasticgpu.controller.webhook.ClaimMutation}, {@link io.elasticgpu.controller.webhook.ShareAdmission})
 * are pure and must never import the fabric8 client; only
 * the facade and the registration talk to the apiserver, and nothing here may import the scheduler or node agent.
 */
package io.elasticgpu.controller.webhook;
