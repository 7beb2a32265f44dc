package io.elasticgpu.node.discovery;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pod and container a process belongs to, read from its cgroup ({@code /proc/<pid>/cgroup}) as kubelet names pod
 * cgroups with either cgroup driver: {@code …/kubepods/burstable/pod<uid>/<container id>} (cgroupfs) or
 * {@code …/kubepods-burstable-pod<uid with _>.slice/cri-containerd-<container id>.scope} (systemd; also
 * {@code crio-} and {@code docker-}). Immutable.
 *
 * @param podUid      the pod's uid, with dashes
 * @param containerId the runtime's container id (64 hex digits), or empty when the cgroup names only the pod
 */
public record ProcessOwner(String podUid, String containerId) {

    private static final Pattern POD = Pattern.compile(
            "pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})(?:\\.slice)?(?:/|$)");
    private static final Pattern CONTAINER = Pattern.compile("(?:^|[-/])([0-9a-f]{64})(?:\\.scope)?$");

    public ProcessOwner {
        requireNonNull(podUid, "podUid");
        requireNonNull(containerId, "containerId");
    }

    /** The owner named by a cgroup file's text (one {@code id:controllers:path} a line), if a line names a pod. */
    public static Optional<ProcessOwner> parse(String cgroupFile) {
        for (String line : cgroupFile.split("\n")) {
            int colon = line.indexOf(':', line.indexOf(':') + 1);
            if (colon < 0) {
                continue;
            }
            String path = line.substring(colon + 1).strip();
            Matcher pod = POD.matcher(path);
            if (pod.find()) {
                Matcher container = CONTAINER.matcher(path);
                return Optional.of(
                        new ProcessOwner(pod.group(1).replace('_', '-'), container.find() ? container.group(1) : ""));
            }
        }
        return Optional.empty();
    }

    /**
     * The owner of {@code pid} as {@code proc} (the host's {@code /proc}) shows it; empty for a process of no pod or
     * gone. */
    public static Optional<ProcessOwner> of(Path proc, long pid) {
        try {
            return parse(Files.readString(proc.resolve(Long.toString(pid)).resolve("cgroup")));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
