package io.elasticgpu.bench.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The order kube-scheduler's scheduling cycles took pods in, read from its log. The cycles run one at a time and each
 * begins with {@code "Attempting to schedule pod"} ({@code schedule_one.go} at verbosity 3, which the control plane
 * turns on for that file alone), so a bound pod's last attempt is the cycle that placed it. Binds land out of that
 * order (they run concurrently, and ours take turns per node), so the API alone cannot tell it.
 */
final class SchedulingCycles {

    private static final Pattern ATTEMPT = Pattern.compile("\"Attempting to schedule pod\" pod=\"([^\"/]+)/([^\"]+)\"");

    private SchedulingCycles() {}

    /** Each pod of {@code namespace} by the number (in log order) of its last scheduling attempt. */
    static Map<String, Long> lastAttempts(Path log, String namespace) {
        Map<String, Long> last = new HashMap<>();
        try (Stream<String> lines = Files.lines(log)) {
            long[] n = {0};
            lines.forEach(line -> {
                Matcher m = ATTEMPT.matcher(line);
                if (m.find()) {
                    n[0]++;
                    if (m.group(1).equals(namespace)) {
                        last.put(m.group(2), n[0]);
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kube-scheduler's log " + log + ": " + e.getMessage(), e);
        }
        return last;
    }
}
