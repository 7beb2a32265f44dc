package io.elasticgpu.localcluster.realnode;

import io.elasticgpu.localcluster.controlplane.Versions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a real node runs, where {@code e2e/bin/build-binaries} (kubelet) and {@code e2e/bin/build-real-node} (the
 * rest) put it: {@code <cache>/bin/<name>-<version>/}, the cache being {@code $EGPU_E2E_CACHE} or {@code e2e/.cache},
 * versions from {@code e2e/versions.env}.
 *
 * @param containerdDir containerd, containerd-shim-runc-v2 (found by containerd on its PATH) and ctr
 * @param cniDir        the CNI plugins bridge, host-local and loopback
 * @param pauseImage    the sandbox image's OCI archive, named {@code pauseName}
 * @param busyboxImage  the workload image's OCI archive, named {@code busyboxName}
 */
public record NodePrograms(
        Path kubelet,
        Path containerdDir,
        Path runc,
        Path cniDir,
        Path pauseImage,
        String pauseName,
        Path busyboxImage,
        String busyboxName,
        String kubernetesVersion) {

    /** The programs for {@code e2eDir/versions.env}. */
    public static NodePrograms locate(Path e2eDir) {
        Map<String, String> v = Versions.entries(e2eDir.resolve("versions.env"));
        String env = System.getenv("EGPU_E2E_CACHE");
        Path bin = (env == null || env.isBlank() ? e2eDir.resolve(".cache") : Path.of(env)).resolve("bin");
        String k8s = require(v, "KUBERNETES_VERSION");
        Path images = bin.resolve("node-images-" + k8s);
        return new NodePrograms(
                bin.resolve("kubelet-" + k8s).resolve("kubelet"),
                bin.resolve("containerd-" + require(v, "CONTAINERD_VERSION")),
                bin.resolve("runc-" + require(v, "RUNC_VERSION")).resolve("runc"),
                bin.resolve("cni-plugins-" + require(v, "CNI_PLUGINS_VERSION")),
                images.resolve("pause.tar"),
                require(v, "NODE_PAUSE_IMAGE"),
                images.resolve("busybox.tar"),
                require(v, "NODE_BUSYBOX_IMAGE"),
                k8s);
    }

    public Path containerd() {
        return containerdDir.resolve("containerd");
    }

    public Path ctr() {
        return containerdDir.resolve("ctr");
    }

    /** Each program or image that is not there, with its path; empty when all are. */
    public List<String> missing() {
        Map<String, Path> all = new LinkedHashMap<>();
        all.put("kubelet", kubelet);
        all.put("containerd", containerd());
        all.put("containerd-shim-runc-v2", containerdDir.resolve("containerd-shim-runc-v2"));
        all.put("ctr", ctr());
        all.put("runc", runc);
        for (String plugin : List.of("bridge", "host-local", "loopback")) {
            all.put("CNI plugin " + plugin, cniDir.resolve(plugin));
        }
        List<String> missing = new ArrayList<>();
        all.forEach((name, path) -> {
            if (!Files.isExecutable(path)) {
                missing.add(name + " (" + path + ")");
            }
        });
        for (Path image : List.of(pauseImage, busyboxImage)) {
            if (!Files.isRegularFile(image)) {
                missing.add("image " + image.getFileName() + " (" + image + ")");
            }
        }
        return missing;
    }

    private static String require(Map<String, String> values, String key) {
        String v = values.get(key);
        if (v == null || v.isEmpty()) {
            throw new IllegalStateException("e2e/versions.env does not set " + key);
        }
        return v;
    }
}
