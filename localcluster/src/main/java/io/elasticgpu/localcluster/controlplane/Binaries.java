package io.elasticgpu.localcluster.controlplane;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the upstream programs are: {@code <cache>/bin/<name>-<version>/<name>}, the cache being
 * {@code $EGPU_E2E_CACHE} or {@code e2e/.cache}, as {@code e2e/bin/build-binaries} lays them out.
 */
public record Binaries(
        Path kubeApiserver,
        Path kubeControllerManager,
        Path kubeScheduler,
        Path kubectl,
        Path etcd,
        Path kwok,
        Versions versions) {

    /** The e2e module\'s directory (the scripts pass -Degpu.e2e.dir): caches, cluster and demo state live under it. */
    public static final Path E2E_DIR = Path.of(System.getProperty("egpu.e2e.dir", "e2e"));

    /** The binaries for {@code e2e/versions.env} under {@code e2eDir}. */
    public static Binaries locate(Path e2eDir) {
        Versions v = Versions.read(e2eDir.resolve("versions.env"));
        Path bin = binDir(e2eDir);
        return new Binaries(
                at(bin, "kube-apiserver", v.kubernetes()),
                at(bin, "kube-controller-manager", v.kubernetes()),
                at(bin, "kube-scheduler", v.kubernetes()),
                at(bin, "kubectl", v.kubernetes()),
                at(bin, "etcd", v.etcd()),
                at(bin, "kwok", v.kwok()),
                v);
    }

    /** Where the build script puts the programs: {@code $EGPU_E2E_CACHE/bin}, else {@code e2eDir/.cache/bin}. */
    public static Path binDir(Path e2eDir) {
        String env = System.getenv("EGPU_E2E_CACHE");
        return (env == null || env.isBlank() ? e2eDir.resolve(".cache") : Path.of(env)).resolve("bin");
    }

    private static Path at(Path bin, String name, String version) {
        return bin.resolve(name + "-" + version).resolve(name);
    }

    /** kwok's node and pod lifecycle stages, assembled by the build script from upstream's module. */
    public Path kwokStages() {
        return kwok.resolveSibling("stages.yaml");
    }

    /**
     * @throws IllegalStateException naming every missing program and how to build them
     */
    public Binaries requirePresent() {
        Map<String, Path> all = new LinkedHashMap<>();
        all.put("kube-apiserver " + versions.kubernetes(), kubeApiserver);
        all.put("kube-controller-manager " + versions.kubernetes(), kubeControllerManager);
        all.put("kube-scheduler " + versions.kubernetes(), kubeScheduler);
        all.put("kubectl " + versions.kubernetes(), kubectl);
        all.put("etcd " + versions.etcd(), etcd);
        all.put("kwok " + versions.kwok(), kwok);
        all.put("kwok stages " + versions.kwok(), kwokStages());
        List<String> missing = new ArrayList<>();
        all.forEach((name, path) -> {
            if (path.toString().endsWith(".yaml") ? !Files.isRegularFile(path) : !Files.isExecutable(path)) {
                missing.add(name + " (" + path + ")");
            }
        });
        if (!missing.isEmpty()) {
            throw new IllegalStateException("missing upstream programs: " + String.join(", ", missing)
                    + ". Build them with e2e/bin/build-binaries (needs Go and the Go module proxy).");
        }
        return this;
    }
}
