package io.elasticgpu.localcluster;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --dir}: where a local cluster lives, for {@code up}, {@code status} and {@code down}. */
public final class ClusterDir {

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            defaultValue = "${sys:egpu.e2e.dir:-e2e}/.cluster",
            description = "Where the cluster lives: its certificates, data, logs and record of what runs (default:"
                    + " ${DEFAULT-VALUE}).")
    Path dir;
}
