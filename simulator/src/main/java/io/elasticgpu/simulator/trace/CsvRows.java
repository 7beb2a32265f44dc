package io.elasticgpu.simulator.trace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of a simple comma-separated file with a header line (the openb files quote nothing), each read by
 * column name with a typed accessor that fails with file, line and column.
 */
final class CsvRows {

    private final Path file;
    private final Map<String, Integer> columns = new HashMap<>();
    private final List<String[]> rows = new ArrayList<>();
    private final List<Integer> lines = new ArrayList<>();

    private CsvRows(Path file) {
        this.file = file;
    }

    static CsvRows read(Path file, List<String> required) {
        CsvRows csv = new CsvRows(file);
        List<String> text;
        try {
            text = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            throw new TraceFormatException(file, "no such file; give the path of an openb CSV file");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (text.isEmpty() || text.getFirst().isBlank()) {
            throw new TraceFormatException(file, "empty file; expected a header line with " + required);
        }
        String[] header = text.getFirst().strip().split(",", -1);
        for (int i = 0; i < header.length; i++) {
            csv.columns.put(header[i].strip(), i);
        }
        for (String column : required) {
            if (!csv.columns.containsKey(column)) {
                throw new TraceFormatException(
                        file,
                        1,
                        column,
                        "missing from the header; expected columns " + required + ", found " + Arrays.toString(header));
            }
        }
        for (int i = 1; i < text.size(); i++) {
            String line = text.get(i);
            if (line.isBlank()) {
                continue;
            }
            String[] cells = line.split(",", -1);
            if (cells.length != header.length) {
                throw new TraceFormatException(
                        file,
                        i + 1,
                        "*",
                        "expected %d cells like the header, found %d".formatted(header.length, cells.length));
            }
            csv.rows.add(cells);
            csv.lines.add(i + 1);
        }
        return csv;
    }

    Path file() {
        return file;
    }

    int size() {
        return rows.size();
    }

    boolean has(String column) {
        return columns.containsKey(column);
    }

    String text(int row, String column) {
        return rows.get(row)[columns.get(column)].strip();
    }

    long number(int row, String column, long min, long max) {
        String cell = text(row, column);
        long value;
        try {
            value = Long.parseLong(cell);
        } catch (NumberFormatException e) {
            throw new TraceFormatException(
                    file,
                    lines.get(row),
                    column,
                    "expected a whole number %d..%d, found \"%s\"".formatted(min, max, cell));
        }
        if (value < min || value > max) {
            throw new TraceFormatException(
                    file,
                    lines.get(row),
                    column,
                    "expected a whole number %d..%d, found %d".formatted(min, max, value));
        }
        return value;
    }

    TraceFormatException error(int row, String column, String problem) {
        return new TraceFormatException(file, lines.get(row), column, problem);
    }
}
