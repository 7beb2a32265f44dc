package io.elasticgpu.cli;

import io.elasticgpu.core.model.ModelTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The model table a command converts TFLOPS with: the shipped one, extended by an operator's file when given. */
final class ModelTableOption {

    private ModelTableOption() {}

    /**
     * @param file the operator's table, or null
     * @throws IllegalArgumentException naming the file, line, model and field of a mistake
     */
    static ModelTable read(Path file) {
        if (file == null) {
            return ModelTable.shipped();
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("--model-table " + file + ": cannot be read", e);
        }
        return ModelTable.shipped().extendedBy(ModelTable.parse(file.toString(), text));
    }
}
