package io.elasticgpu.cli;

import io.elasticgpu.api.v1alpha1.PodAsks;
import picocli.CommandLine.Option;

/**
 * {@code --memory-block-mib} and {@code --aliyun-unit-mib}: how many MiB one unit of the memory resources holds, which
 * the extender, the node agents and the controller's webhook must agree on ({@code @Mixin}).
 */
final class UnitOptions {

    @Option(
            names = "--memory-block-mib",
            paramLabel = "MIB",
            defaultValue = "1",
            description =
                    "MiB in one unit of elasticgpu.io/gpu-memory (default ${DEFAULT-VALUE}); the extender, the node"
                            + " agents and the controller must have the same.")
    long memoryBlockMib;

    @Option(
            names = "--aliyun-unit-mib",
            paramLabel = "MIB",
            defaultValue = "1024",
            description =
                    "MiB in one unit of aliyun.com/gpu-mem (default ${DEFAULT-VALUE}, Aliyun's GiB); the extender,"
                            + " the node agents and the controller must have the same.")
    long aliyunUnitMib;

    /** Both units, with the default resource names. */
    PodAsks.Units units() {
        PodAsks.Units d = PodAsks.Units.DEFAULT;
        return new PodAsks.Units(memoryBlockMib, aliyunUnitMib, d.gpu(), d.gpuMemory(), d.gpuCore(), d.gpuCount());
    }
}
