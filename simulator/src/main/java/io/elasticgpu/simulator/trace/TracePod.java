package io.elasticgpu.simulator.trace;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;

/** One pod of a trace: its name and what it asks. Immutable. */
public record TracePod(String name, Ask ask) {
    public TracePod {
        requireNonNull(name, "name");
        requireNonNull(ask, "ask");
    }

    /** The same ask under another name, as the replay names the clones it adds. */
    public TracePod renamed(String newName) {
        return new TracePod(newName, ask);
    }
}
