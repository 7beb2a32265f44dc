package io.elasticgpu.node.isolation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the agent reads what MPS's control program answers: limits as numbers, and lists of process ids. NVIDIA
 * documents the units limits are set in ({@code 20480M}, {@code 20G}), not the exact text the getters print; so a
 * limit is read as a number with an optional unit (K, M, G, T, with or without {@code iB}; none means MiB), and an
 * answer that is not one is unreadable, which the caller reports rather than takes for a changed limit.
 */
final class MpsAnswers {

    private static final Pattern MEMORY =
            Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGT]?)(?:I?B)?", Pattern.CASE_INSENSITIVE);

    private MpsAnswers() {}

    /** A memory limit in MiB, rounded down; empty when the answer is not one. */
    static OptionalLong mib(String answer) {
        Matcher m = MEMORY.matcher(answer.strip());
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        double value = Double.parseDouble(m.group(1));
        double mib = switch (m.group(2).toUpperCase(Locale.ROOT)) {
            case "K" -> value / 1024;
            case "G" -> value * 1024;
            case "T" -> value * 1024 * 1024;
            default -> value;
        };
        return OptionalLong.of((long) Math.floor(mib + 1e-9));
    }

    /** A percentage ({@code 30}, {@code 30.0}, {@code 30.00}); empty when the answer is not one. */
    static OptionalDouble percent(String answer) {
        try {
            return OptionalDouble.of(Double.parseDouble(answer.strip()));
        } catch (NumberFormatException e) {
            return OptionalDouble.empty();
        }
    }

    /** The process ids in an answer, one or more per line, anything else ignored. */
    static List<Long> pids(String answer) {
        List<Long> out = new ArrayList<>();
        for (String word : answer.split("\\s+")) {
            if (word.matches("\\d+")) {
                out.add(Long.parseLong(word));
            }
        }
        return out;
    }
}
