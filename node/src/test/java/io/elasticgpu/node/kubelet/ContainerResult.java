package io.elasticgpu.node.kubelet;

import java.util.List;
import java.util.Map;

/**
 * What kubelet's device manager hands the container runtime for one container: the device ids it assigned, by
 * resource, and the plugins' Allocate answers merged (environment, mounts, device nodes, annotations, CDI devices).
 */
public record ContainerResult(
        Map<String, List<String>> devices,
        Map<String, String> envs,
        List<Mount> mounts,
        List<DeviceSpec> deviceSpecs,
        Map<String, String> annotations,
        List<String> cdiDevices) {

    public ContainerResult {
        devices = devices == null ? Map.of() : Map.copyOf(devices);
        envs = envs == null ? Map.of() : Map.copyOf(envs);
        mounts = mounts == null ? List.of() : List.copyOf(mounts);
        deviceSpecs = deviceSpecs == null ? List.of() : List.copyOf(deviceSpecs);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        cdiDevices = cdiDevices == null ? List.of() : List.copyOf(cdiDevices);
    }

    /** The ids of {@code resource} assigned to the container, sorted; empty when none. */
    public List<String> devices(String resource) {
        return devices.getOrDefault(resource, List.of());
    }

    public record Mount(String containerPath, String hostPath, boolean readOnly) {}

    public record DeviceSpec(String containerPath, String hostPath, String permissions) {}
}
