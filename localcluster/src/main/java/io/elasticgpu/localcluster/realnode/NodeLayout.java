package io.elasticgpu.localcluster.realnode;

import java.nio.file.Path;

/**
 * Where a real node keeps things. Its running state (containerd's root and sockets, kubelet's root directory, the
 * CNI and CDI directories) is under a short fixed directory, {@code /run/elasticgpu-real-node}, since unix socket
 * paths must stay under 108 bytes and kubelet's device-plugin directory is fixed anyway (one real node per machine);
 * its configuration, certificates and the pods' logs are under the test run's directory, where they stay.
 *
 * @param state  the running state, emptied when the node stops
 * @param config configuration files, certificates, the pods' log files
 */
public record NodeLayout(Path state, Path config) {

    /** kubelet's device-plugin directory: fixed in kubelet ({@code v1beta1.DevicePluginPath}). */
    public static final Path DEVICE_PLUGINS = Path.of("/var/lib/kubelet/device-plugins");

    public static final Path DEFAULT_STATE = Path.of("/run/elasticgpu-real-node");

    public static NodeLayout under(Path config) {
        return new NodeLayout(DEFAULT_STATE, config);
    }

    public Path containerdSocket() {
        return state.resolve("containerd").resolve("containerd.sock");
    }

    public Path kubeletRoot() {
        return state.resolve("kubelet");
    }

    /** kubelet's pod-resources socket, which the device-plugin agent reads. */
    public Path podResourcesSocket() {
        return kubeletRoot().resolve("pod-resources").resolve("kubelet.sock");
    }

    /** kubelet's plugin registration directory, where a DRA driver registers. */
    public Path pluginsRegistry() {
        return kubeletRoot().resolve("plugins_registry");
    }

    /** Where a DRA driver keeps its socket and checkpoint, under kubelet's plugins directory. */
    public Path pluginDir(String driver) {
        return kubeletRoot().resolve("plugins").resolve(driver);
    }

    /** The directory containerd reads CDI specs from. */
    public Path cdiDir() {
        return state.resolve("cdi");
    }

    public Path cniConfDir() {
        return state.resolve("cni").resolve("net.d");
    }

    public Path podLogs() {
        return config.resolve("pod-logs");
    }
}
