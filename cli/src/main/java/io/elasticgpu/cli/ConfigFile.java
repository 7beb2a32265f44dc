package io.elasticgpu.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one configuration file format of {@code egpu scheduler}, {@code egpu node-agent} and {@code egpu controller}
 * ({@code --config FILE}): YAML with a {@code version} and a section per component, each section's keys named after
 * the component's flags ({@link ConfigSource#key}). A file may hold one section or all three; each component reads
 * its own and checks its keys ({@link ConfigSource}).
 *
 * <pre>
 * version: v1
 * scheduler:
 *   policy: elastic-lookahead
 * nodeAgent:
 *   isolation: mps
 * </pre>
 *
 * @param path     where it was read from, for messages
 * @param sections each component's keys and values, by section name, in the file's order
 */
record ConfigFile(Path path, Map<String, Map<String, Object>> sections) {

    /** The one version this build reads. */
    static final String VERSION = "v1";

    /** The commands that read a configuration file, the components, in the order their sections are listed. */
    static final List<String> COMMANDS = List.of("scheduler", "node-agent", "controller");

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    ConfigFile {
        sections = Map.copyOf(sections);
    }

    /**
     * The file at {@code path}, its version and sections checked.
     *
     * @throws Mistake starting with the file's name: unreadable, not YAML, no or another version,
     *                                  an unknown section or a section that is not a map of keys
     */
    static ConfigFile read(Path path) {
        String text;
        try {
            text = Files.readString(path);
        } catch (IOException | RuntimeException e) {
            throw new Mistake("%s: cannot be read (%s)".formatted(path, e.getMessage()), e);
        }
        return parse(path, text);
    }

    /**
     * {@code text}, read from {@code path}, checked as {@link #read} checks a file.
     *
     * @throws Mistake as {@link #read}
     */
    static ConfigFile parse(Path path, String text) {
        Object top;
        try {
            top = YAML.readValue(text, Object.class);
        } catch (IOException | RuntimeException e) {
            String why = e.getMessage() == null
                    ? e.toString()
                    : e.getMessage().lines().findFirst().orElse("");
            throw new Mistake("%s: cannot be read as a configuration file (%s)".formatted(path, why), e);
        }
        if (!(top instanceof Map<?, ?> map)) {
            throw new Mistake(
                    "%s: a configuration file is a YAML map, starting with version: %s".formatted(path, VERSION));
        }
        Object version = map.get("version");
        if (version == null) {
            throw new Mistake(
                    "%s: the file has no version; add the line version: %s at the top".formatted(path, VERSION));
        }
        if (!VERSION.equals(String.valueOf(version))) {
            throw new Mistake(
                    "%s: version %s is not one this egpu reads; write version: %s".formatted(path, version, VERSION));
        }
        Map<String, Map<String, Object>> sections = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (key.equals("version")) {
                continue;
            }
            if (COMMANDS.stream().map(ConfigFile::section).noneMatch(key::equals)) {
                throw new Mistake("%s: unknown key %s; the file holds version and the sections %s"
                        .formatted(
                                path,
                                key,
                                String.join(
                                        ", ",
                                        COMMANDS.stream()
                                                .map(ConfigFile::section)
                                                .toList())));
            }
            sections.put(key, section(path, key, e.getValue()));
        }
        return new ConfigFile(path, sections);
    }

    /** A configuration file that cannot be read as one, with the file's name, what is wrong and what to write. */
    static final class Mistake extends IllegalArgumentException {
        Mistake(String message) {
            super(message);
        }

        Mistake(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The keys and values of a command's section; empty when the file has none. */
    Map<String, Object> sectionOf(String command) {
        return sections.getOrDefault(section(command), Map.of());
    }

    /** A command's section: its name in camel case, as keys are ({@code node-agent}: {@code nodeAgent}). */
    static String section(String command) {
        return camel(command);
    }

    /** {@code mps-context-reserve-mib}: {@code mpsContextReserveMib}. */
    static String camel(String kebab) {
        StringBuilder out = new StringBuilder();
        boolean upper = false;
        for (char c : kebab.toCharArray()) {
            if (c == '-') {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }

    private static Map<String, Object> section(Path path, String name, Object value) {
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?> keys)) {
            throw new Mistake("%s: %s must be a map of keys (e.g. %s:\\n  key: value), was %s"
                    .formatted(path, name, name, value));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        keys.forEach((k, v) -> {
            if (v instanceof Map<?, ?>) {
                throw new Mistake("%s: %s.%s must be a value or a list of values, not a map".formatted(path, name, k));
            }
            out.put(String.valueOf(k), v);
        });
        return out;
    }
}
