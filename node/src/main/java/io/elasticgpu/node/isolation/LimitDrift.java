package io.elasticgpu.node.isolation;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * A limit that the agent read back from MPS and found other than it set, and put back: someone with access to the
 * control pipe changed it (MPS applies a changed limit to the clients that start after the change). Immutable.
 *
 * @param share    the share whose limit it was
 * @param server   the MPS server whose limit it was, or 0 for a daemon's default (what its next server gets)
 * @param setting  which limit, as MPS names it ({@code active_thread_percentage}, {@code device_pinned_mem_limit 0})
 * @param found    what MPS answered
 * @param expected what the agent had set, and set again
 * @param since    when the limit was last read back as set: a client that started after it may run under the
 *                 changed limit
 */
public record LimitDrift(MpsShare share, long server, String setting, String found, String expected, Instant since) {

    public LimitDrift {
        requireNonNull(share, "share");
        requireNonNull(setting, "setting");
        requireNonNull(found, "found");
        requireNonNull(expected, "expected");
        requireNonNull(since, "since");
    }

    /** For events and logs: which limit, where, what it was and what it is again. */
    public String describe() {
        String where = server > 0
                ? " of MPS server " + server
                : setting.startsWith("namespace ") || setting.startsWith("dmem") ? "" : " (the daemon's default)";
        return "%s%s was \"%s\", set again to %s".formatted(setting, where, found, expected);
    }
}
