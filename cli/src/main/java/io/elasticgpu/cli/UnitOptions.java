package io.elasticgpu.cli;

import io.elasticgpu.api.v1alpha1.PodAsks;
import java.util.OptionalLong;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

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

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** Both units, with the default resource names. */
    PodAsks.Units units() {
        PodAsks.Units d = PodAsks.Units.DEFAULT;
        return new PodAsks.Units(memoryBlockMib, aliyunUnitMib, d.gpu(), d.gpuMemory(), d.gpuCore(), d.gpuCount());
    }

    /** {@code --memory-block-mib} if it was given, for a command whose configuration file it overrides. */
    OptionalLong memoryBlockMibGiven() {
        return given("--memory-block-mib") ? OptionalLong.of(memoryBlockMib) : OptionalLong.empty();
    }

    /** {@code --aliyun-unit-mib} if it was given, for a command whose configuration file it overrides. */
    OptionalLong aliyunUnitMibGiven() {
        return given("--aliyun-unit-mib") ? OptionalLong.of(aliyunUnitMib) : OptionalLong.empty();
    }

    private boolean given(String option) {
        ParseResult parsed = command == null || command.commandLine() == null
                ? null
                : command.commandLine().getParseResult();
        return parsed != null && parsed.hasMatchedOption(option);
    }
}
