package io.elasticgpu.node.isolation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the agent reads what MPS's control program answers: limits as numbers, lists of process ids, and the CSV lists
 * of MPS v3 ({@code --format=csv}) read by their header. NVIDIA
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

    /** A number, such as a process id in a list; empty when the field is missing or is not one. */
    static OptionalLong number(String field) {
        try {
            return field == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(field.strip()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** The rows of a list by their {@code name} column; rows without a name are left out. */
    static Map<String, Map<String, String>> byName(List<Map<String, String>> rows) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        for (Map<String, String> row : rows) {
            String name = row.get("name");
            if (name != null && !name.isEmpty()) {
                out.put(name, row);
            }
        }
        return out;
    }

    /**
     * A list the control program printed as CSV ({@code --format=csv}), each row as column → value. Columns are
     * taken from its header (lower-cased, spaces and {@code _} as {@code -}: {@code PINNED MEMORY LIMIT} is
     * {@code pinned-memory-limit}) when its first line starts with the first documented column, else in the
     * documented order. Fields may be quoted; a row with more fields than columns (a list with commas left unquoted)
     * gives the rest to its last column.
     */
    static List<Map<String, String>> rows(String csv, List<String> documented) {
        List<String> lines = csv.lines().filter(l -> !l.isBlank()).toList();
        if (lines.isEmpty()) {
            return List.of();
        }
        List<String> first = fields(lines.getFirst());
        boolean header = column(first.getFirst()).equals(documented.getFirst());
        List<String> columns = header ? first.stream().map(MpsAnswers::column).toList() : documented;
        List<Map<String, String>> out = new ArrayList<>();
        for (String line : lines.subList(header ? 1 : 0, lines.size())) {
            List<String> f = fields(line);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < columns.size() && i < f.size(); i++) {
                row.put(columns.get(i), i == columns.size() - 1 ? String.join(",", f.subList(i, f.size())) : f.get(i));
            }
            out.add(row);
        }
        return out;
    }

    private static String column(String header) {
        return header.strip().toLowerCase(Locale.ROOT).replace(' ', '-').replace('_', '-');
    }

    /** One CSV line's fields (RFC 4180: quoted fields may hold commas and doubled quotes), each stripped. */
    static List<String> fields(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder f = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    f.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    f.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                out.add(f.toString().strip());
                f.setLength(0);
            } else {
                f.append(c);
            }
        }
        out.add(f.toString().strip());
        return out;
    }
}
