/**
 * The placement engine: cards, links, nodes, fit checks, policies and one scheduling cycle, on the JDK alone. Its
 * packages depend one way: {@code model} ← {@code snapshot} ← {@code policy} ← {@code placement}.
 */
module io.elasticgpu.core {
    exports io.elasticgpu.core.model;
    exports io.elasticgpu.core.snapshot;
    exports io.elasticgpu.core.policy;
    exports io.elasticgpu.core.placement;
}
