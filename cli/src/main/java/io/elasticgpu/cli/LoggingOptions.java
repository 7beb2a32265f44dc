package io.elasticgpu.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.List;
import java.util.Locale;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/** {@code --log-level}, for the commands that run until stopped ({@code @Mixin}). */
final class LoggingOptions {

    private static final List<String> LEVELS = List.of("error", "warn", "info", "debug", "trace");

    @Option(
            names = "--log-level",
            paramLabel = "LEVEL",
            description = "error, warn, info, debug or trace (default: $EGPU_LOG_LEVEL, else warn).")
    String level;

    /**
     * Sets the level of every logger that has none of its own, when one was given.
     *
     * @throws IllegalArgumentException naming the flag and the levels for anything else
     */
    void apply() {
        if (level == null) {
            return;
        }
        String l = level.toLowerCase(Locale.ROOT);
        if (!LEVELS.contains(l)) {
            throw new IllegalArgumentException("--log-level must be error, warn, info, debug or trace, was " + level);
        }
        if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof Logger root) {
            root.setLevel(Level.toLevel(l));
        }
    }
}
