package io.elasticgpu.controller.view;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;

/** The view's records as JSON or YAML, field for field, memory in MiB; for scripts. */
final class DataRenderer {

    private static final ObjectWriter JSON;
    private static final ObjectWriter YAML = new ObjectMapper(YAMLFactory.builder()
                    .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .disable(YAMLGenerator.Feature.SPLIT_LINES)
                    .build())
            .writer();

    static {
        DefaultIndenter lines = new DefaultIndenter("  ", "\n");
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter()
                .withSeparators(Separators.createDefaultInstance()
                        .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                        .withObjectEmptySeparator("")
                        .withArrayEmptySeparator(""));
        printer.indentObjectsWith(lines);
        printer.indentArraysWith(lines);
        JSON = new ObjectMapper().writer(printer);
    }

    private DataRenderer() {}

    static String json(ClusterView view) {
        return write(JSON, view) + "\n";
    }

    static String yaml(ClusterView view) {
        return write(YAML, view);
    }

    private static String write(ObjectWriter writer, ClusterView view) {
        try {
            return writer.writeValueAsString(view);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the cluster view", e);
        }
    }
}
