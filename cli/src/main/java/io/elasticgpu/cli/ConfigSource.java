package io.elasticgpu.cli;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The one precedence of the components' settings: a flag given on the command line, else the environment variable
 * {@code EGPU_<KEY>}, else the key of the command's section in {@code --config FILE}, else the flag's default. picocli
 * asks this for every option not given as a flag, after the flags are read, so {@code --config} is known by then.
 *
 * <p>A key is the flag's name in camel case ({@code --mps-layout}: {@code mpsLayout}); a flag that turns something off
 * ({@code --no-webhook}) is the key of what it turns off, true by default ({@code webhook: false}). A list is written
 * as a YAML list or comma-separated. The file's version and every key of the section are checked before any option
 * is read: an unknown key is refused with its path ({@code nodeAgent.mpsLayot}) and the keys it could be.
 */
final class ConfigSource implements CommandLine.IDefaultValueProvider {

    /** The option naming the file. */
    static final String CONFIG = "--config";
    /** What every environment variable of a setting starts with. */
    static final String ENV_PREFIX = "EGPU_";

    private static final Set<String> NOT_SETTINGS = Set.of(CONFIG, "--help", "--version");

    private final CommandSpec command;
    private final Map<String, String> environment;
    private final Map<ArgSpec, String> origins = new HashMap<>();
    private Optional<Map<String, Object>> section;

    ConfigSource(CommandSpec command, Map<String, String> environment) {
        this.command = command;
        this.environment = Map.copyOf(environment);
    }

    /** Where an option's value came from when not from a flag: the environment variable, or the file and key. */
    Optional<String> origin(ArgSpec option) {
        return Optional.ofNullable(origins.get(option));
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option) || NOT_SETTINGS.contains(option.longestName())) {
            return null;
        }
        Map<String, Object> keys = section(); // the whole section checked, whichever option is asked first
        String key = key(option);
        String fromEnvironment = environment.get(env(key));
        String value;
        if (fromEnvironment != null) {
            origins.put(option, "environment variable " + env(key));
            value = fromEnvironment;
        } else if (keys.get(key) != null) {
            origins.put(option, "%s, key %s.%s".formatted(file(), ConfigFile.section(command.name()), key));
            value = keys.get(key) instanceof List<?> list
                    ? list.stream().map(String::valueOf).collect(Collectors.joining(","))
                    : String.valueOf(keys.get(key));
        } else {
            return null;
        }
        if (!inverted(option)) {
            return value;
        }
        if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
            throw new ConfigFile.Mistake(
                    "%s must be true or false, was \"%s\" (from %s)".formatted(key, value, origins.get(option)));
        }
        return String.valueOf(!Boolean.parseBoolean(value));
    }

    /** The keys a command's section may have: one per option but {@code --config}, help and version. */
    static Set<String> keys(CommandSpec command) {
        return command.options().stream()
                .filter(o -> !NOT_SETTINGS.contains(o.longestName()))
                .map(ConfigSource::key)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The key of an option: its longest name in camel case, {@code no-} left off a flag that turns a thing off. */
    static String key(OptionSpec option) {
        String name = option.longestName().replaceFirst("^-+", "");
        if (inverted(option)) {
            name = name.substring("no-".length());
        }
        return ConfigFile.camel(name);
    }

    /**
     * The flags a section of a configuration file stands for, in the section's order: {@code webhook: false} is
     * {@code --no-webhook}, {@code mpsHostNamespaces: true} is {@code --mps-host-namespaces}, a list is one
     * comma-separated argument.
     *
     * @throws IllegalArgumentException for a key that is none of the command's
     */
    static List<String> flags(CommandSpec command, Map<String, Object> section) {
        List<String> out = new java.util.ArrayList<>();
        section.forEach((key, value) -> {
            OptionSpec option = command.options().stream()
                    .filter(o -> !NOT_SETTINGS.contains(o.longestName()) && key(o).equals(key))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("egpu %s has no setting %s; its keys are %s"
                            .formatted(command.name(), key, keys(command))));
            String text = value instanceof List<?> list
                    ? list.stream().map(String::valueOf).collect(Collectors.joining(","))
                    : String.valueOf(value);
            if (option.arity().max() > 0) {
                out.add(option.longestName());
                out.add(text);
            } else if (Boolean.parseBoolean(text) != inverted(option)) {
                out.add(option.longestName());
            } else if (option.negatable()) {
                out.add(command.negatableOptionTransformer().makeNegative(option.longestName(), command));
            }
        });
        return out;
    }

    /** The environment variable of a key: {@code mpsLayout}: {@code EGPU_MPS_LAYOUT}. */
    static String env(String key) {
        return ENV_PREFIX + key.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }

    /** Whether the option is a flag that turns a thing off, so that its key holds the opposite. */
    static boolean inverted(OptionSpec option) {
        return option.arity().max() == 0
                && !option.negatable()
                && option.longestName().startsWith("--no-");
    }

    private Path file() {
        return command.findOption(CONFIG).getValue();
    }

    /** The command's section of {@code --config}, read and checked the first time; empty without the option. */
    private Map<String, Object> section() {
        if (section == null) {
            Path file = file();
            section = Optional.of(file == null ? Map.of() : checked(ConfigFile.read(file)));
        }
        return section.orElseThrow();
    }

    private Map<String, Object> checked(ConfigFile file) {
        Map<String, Object> keys = file.sectionOf(command.name());
        Set<String> known = keys(command);
        String name = ConfigFile.section(command.name());
        for (String key : keys.keySet()) {
            if (!known.contains(key)) {
                throw new ConfigFile.Mistake("%s: unknown key %s.%s; the keys of %s are %s"
                        .formatted(file.path(), name, key, name, String.join(", ", known)));
            }
        }
        return keys;
    }
}
