package io.elasticgpu.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --config FILE}: the configuration file of the extender, the node agent and the controller ({@code @Mixin}),
 * one format for the three ({@link ConfigFile}); each reads its own section, under its flags and environment
 * ({@link ConfigSource}).
 */
final class ConfigOption {

    @Option(
            names = ConfigSource.CONFIG,
            paramLabel = "FILE",
            description = "Configuration file (YAML, version: v1); the command reads its own section. A flag overrides"
                    + " its environment variable EGPU_<KEY>, which overrides the file's key, which overrides the"
                    + " default (docs/reference/configuration.md).")
    Path file;
}
