package io.elasticgpu.localcluster.realnode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The configuration files of a real node's containerd, CNI network and kubelet, written under {@link NodeLayout}.
 * What each setting is for is said beside it; the ones that differ from a production node are the ones a test
 * machine needs (cgroup v1, no {@code CAP_SYS_RESOURCE}, no DNS, loopback-only probes).
 */
final class NodeConfigFiles {

    /** The bridge the pods' network hangs on, and its subnet (one real node per machine). */
    static final String BRIDGE = "egpu-cni0";

    static final String POD_SUBNET = "10.244.250.0/24";
    /** Every real node carries it, so that only pods meant for it (tolerating it) land there. */
    public static final String TAINT_KEY = "elasticgpu.io/real-node";

    private NodeConfigFiles() {}

    /**
     * containerd 2.x: CRI with CDI (on by default in 2.x; specs read from {@link NodeLayout#cdiDir()}), runc from
     * the cache, the pinned sandbox image, network namespaces under its own state directory.
     */
    static Path containerd(NodeLayout layout, NodePrograms programs) {
        Path state = layout.state().resolve("containerd");
        return write(layout.config().resolve("containerd.toml"), """
                version = 3
                root = "%1$s/root"
                state = "%1$s/state"
                [grpc]
                  address = "%2$s"
                [ttrpc]
                  address = "%2$s.ttrpc"
                [plugins]
                  [plugins.'io.containerd.cri.v1.images']
                    snapshotter = "overlayfs"
                    [plugins.'io.containerd.cri.v1.images'.pinned_images]
                      sandbox = "%3$s"
                  [plugins.'io.containerd.cri.v1.runtime']
                    cdi_spec_dirs = ["%4$s"]
                    netns_mounts_under_state_dir = true
                    # a test machine's root may lack CAP_SYS_RESOURCE: no oom_score_adj below containerd's own
                    restrict_oom_score_adj = true
                    [plugins.'io.containerd.cri.v1.runtime'.containerd]
                      default_runtime_name = "runc"
                      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
                        runtime_type = "io.containerd.runc.v2"
                        runtime_path = "%8$s"
                        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
                          BinaryName = "%5$s"
                          Root = "%1$s/runc"
                          SystemdCgroup = false
                    [plugins.'io.containerd.cri.v1.runtime'.cni]
                      bin_dirs = ["%6$s"]
                      conf_dir = "%7$s"
                  [plugins.'io.containerd.grpc.v1.cri']
                    stream_server_address = "127.0.0.1"
                    stream_server_port = "0"
                """.formatted(
                        state,
                        layout.containerdSocket(),
                        programs.pauseName(),
                        layout.cdiDir(),
                        programs.runc(),
                        programs.cniDir(),
                        layout.cniConfDir(),
                        programs.containerdDir().resolve("containerd-shim-runc-v2")));
    }

    /** A bridge with host-local addresses: enough for containerd to report the network ready; pods need no more. */
    static Path cni(NodeLayout layout) {
        return write(layout.cniConfDir().resolve("10-elasticgpu.conflist"), """
                {"cniVersion": "1.0.0", "name": "elasticgpu-real-node", "plugins": [
                  {"type": "bridge", "bridge": "%s", "isGateway": true, "ipMasq": false,
                   "ipam": {"type": "host-local", "ranges": [[{"subnet": "%s"}]], "dataDir": "%s"}}]}
                """.formatted(
                        BRIDGE, POD_SUBNET, layout.state().resolve("cni").resolve("ipam")));
    }

    /**
     * kubelet: cgroup v1 allowed ({@code failCgroupV1: false}), cgroupfs under its own root cgroup, the API server's
     * requests authenticated by certificate and authorized by the API server, the node tainted.
     */
    static Path kubelet(NodeLayout layout, String nodeIp, int port, int healthzPort, Path ca, Path cert, Path key) {
        return write(layout.config().resolve("kubelet.yaml"), """
                apiVersion: kubelet.config.k8s.io/v1beta1
                kind: KubeletConfiguration
                failCgroupV1: false
                cgroupDriver: cgroupfs
                cgroupRoot: /%1$s
                containerRuntimeEndpoint: unix://%2$s
                address: %3$s
                port: %4$d
                readOnlyPort: 0
                healthzBindAddress: 127.0.0.1
                healthzPort: %5$d
                tlsCertFile: %6$s
                tlsPrivateKeyFile: %7$s
                authentication:
                  anonymous: {enabled: false}
                  webhook: {enabled: true}
                  x509: {clientCAFile: %8$s}
                authorization: {mode: Webhook}
                failSwapOn: false
                podLogsDir: %9$s
                registerWithTaints:
                - {key: %10$s, value: "true", effect: NoSchedule}
                # a test machine's disk may be fuller than a node's: evict nothing for lack of space, collect no image
                evictionHard: {memory.available: "100Mi", nodefs.available: "1%%", imagefs.available: "1%%"}
                imageGCHighThresholdPercent: 100
                imageGCLowThresholdPercent: 99
                resolvConf: ""
                localStorageCapacityIsolation: false
                # seconds, not the minute of a production node: tests restart kubelet and wait for it
                nodeStatusUpdateFrequency: 2s
                syncFrequency: 10s
                """.formatted(
                        CgroupRoot.NAME,
                        layout.containerdSocket(),
                        nodeIp,
                        port,
                        healthzPort,
                        cert,
                        key,
                        ca,
                        layout.podLogs(),
                        TAINT_KEY));
    }

    private static Path write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            return Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
