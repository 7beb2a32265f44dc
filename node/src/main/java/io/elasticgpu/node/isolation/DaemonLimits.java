package io.elasticgpu.node.isolation;

import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The limits of one legacy MPS control daemon read back and set again where they changed: its defaults (what its
 * next server gets) and each running server's own ({@code get_active_thread_percentage <server>},
 * {@code get_device_pinned_mem_limit <server> <card>}). A share's containers have its pipe directory, and MPS documents
 * no refusal of a command that comes through it; so whatever a pod sent there is found within a round. All the reads
 * of a daemon go in one run of the control program where it takes several commands, one run each where it does not.
 * Not thread-safe: {@link MpsDaemons} calls it under its lock.
 */
final class DaemonLimits {

    private static final Logger LOG = LoggerFactory.getLogger(DaemonLimits.class);

    private final MpsControl control;
    private final InstantSource clock;
    private final Map<String, Instant> verified = new HashMap<>(); // share key -> when its limits last read back as set
    private final Map<String, String> unreadable = new HashMap<>(); // share key -> the answer last logged as unreadable
    private boolean batches = true; // whether the control program answers several commands in one run

    DaemonLimits(MpsControl control, InstantSource clock) {
        this.control = control;
        this.clock = clock;
    }

    /** The share's limits were just set by the agent. */
    void verified(String key) {
        verified.put(key, clock.instant());
    }

    void forget(String key) {
        verified.remove(key);
        unreadable.remove(key);
    }

    /** Reads the daemon's limits and its servers' back, sets again those that changed, and returns them. */
    List<LimitDrift> audit(MpsDaemons.Daemon d, List<Long> servers) {
        MpsShare share = d.share();
        int cards = share.cards().size();
        List<String> gets = new ArrayList<>();
        List<String> sets = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        List<Long> of = new ArrayList<>();
        gets.add("get_default_active_thread_percentage");
        sets.add("set_default_active_thread_percentage " + share.limits().threadPercent());
        names.add("active_thread_percentage");
        expected.add(Integer.toString(share.limits().threadPercent()));
        of.add(0L);
        for (int i = 0; i < cards; i++) {
            long mib = share.limits().memoryMib().get(i);
            gets.add("get_default_device_pinned_mem_limit " + i);
            sets.add("set_default_device_pinned_mem_limit %d %dM".formatted(i, mib));
            names.add("device_pinned_mem_limit " + i);
            expected.add(mib + "M");
            of.add(0L);
        }
        for (long server : servers) {
            gets.add("get_active_thread_percentage " + server);
            sets.add("set_active_thread_percentage %d %d"
                    .formatted(server, share.limits().threadPercent()));
            names.add("active_thread_percentage");
            expected.add(Integer.toString(share.limits().threadPercent()));
            of.add(server);
            for (int i = 0; i < cards; i++) {
                long mib = share.limits().memoryMib().get(i);
                gets.add("get_device_pinned_mem_limit %d %d".formatted(server, i));
                sets.add("set_device_pinned_mem_limit %d %d %dM".formatted(server, i, mib));
                names.add("device_pinned_mem_limit " + i);
                expected.add(mib + "M");
                of.add(server);
            }
        }
        List<String> answers = answers(d.dirs().pipe(), gets);
        Instant since = verified.getOrDefault(share.key(), d.started());
        List<LimitDrift> drifts = new ArrayList<>();
        for (int i = 0; i < gets.size(); i++) {
            String answer = answers.get(i);
            Optional<Boolean> same = same(answer, expected.get(i));
            if (same.isEmpty()) {
                if (!answer.equals(unreadable.put(share.key(), answer))) {
                    LOG.warn(
                            "MPS share {}: cannot read \"{}\" as a limit (asked {}); not checked",
                            share.key(),
                            answer,
                            gets.get(i));
                }
                continue;
            }
            if (!same.get()) {
                control.send(d.dirs().pipe(), sets.get(i));
                drifts.add(new LimitDrift(share, of.get(i), names.get(i), answer, expected.get(i), since));
            }
        }
        if (drifts.isEmpty()) {
            verified.put(share.key(), clock.instant());
        } else {
            drifts.forEach(x -> LOG.warn("MPS share {} ({}): {}", share.key(), share.holder(), x.describe()));
        }
        return drifts;
    }

    /** One answer per command: all in one run where the control program takes it, else one run each. */
    private List<String> answers(Path pipe, List<String> gets) {
        if (batches) {
            List<String> lines = control.sendAll(pipe, gets);
            if (lines.size() == gets.size()) {
                return lines;
            }
            batches = false;
            LOG.info(
                    "the MPS control program answered {} lines to {} commands in one run; asking one at a time",
                    lines.size(),
                    gets.size());
        }
        List<String> out = new ArrayList<>();
        for (String get : gets) {
            out.add(control.send(pipe, get));
        }
        return out;
    }

    /** Whether an answer is the expected limit ({@code 30}, {@code 20480M}); empty when it cannot be read. */
    private static Optional<Boolean> same(String answer, String expected) {
        if (expected.endsWith("M")) {
            OptionalLong mib = MpsAnswers.mib(answer);
            return mib.isPresent()
                    ? Optional.of(mib.getAsLong() == Long.parseLong(expected.substring(0, expected.length() - 1)))
                    : Optional.empty();
        }
        OptionalDouble percent = MpsAnswers.percent(answer);
        return percent.isPresent()
                ? Optional.of(percent.getAsDouble() == Integer.parseInt(expected))
                : Optional.empty();
    }
}
