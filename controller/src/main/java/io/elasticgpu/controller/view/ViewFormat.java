package io.elasticgpu.controller.view;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How {@code egpu inspect -o} prints a view: for people ({@code table}, {@code wide}) or for scripts. */
public enum ViewFormat {
    /** Fits 80 columns: the summary, then a line per card with its model, usage and pods. */
    TABLE,
    /** The table with card uuids and a line per holder: namespace, pod, container, share, phase. */
    WIDE,
    JSON,
    YAML;

    /** The names {@code -o} accepts, comma-separated. */
    public static final String CHOICES =
            Arrays.stream(values()).map(ViewFormat::toString).collect(Collectors.joining(", "));

    public String render(ClusterView view) {
        return switch (this) {
            case TABLE -> new TableRenderer(false).render(view);
            case WIDE -> new TableRenderer(true).render(view);
            case JSON -> DataRenderer.json(view);
            case YAML -> DataRenderer.yaml(view);
        };
    }

    /** @throws IllegalArgumentException naming the choices when {@code name} is none of them */
    public static ViewFormat parse(String name) {
        return Arrays.stream(values())
                .filter(f -> f.toString().equals(name))
                .findFirst()
                .orElseThrow(
                        () -> new IllegalArgumentException("expected one of %s, was \"%s\"".formatted(CHOICES, name)));
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
