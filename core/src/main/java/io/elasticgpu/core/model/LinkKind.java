package io.elasticgpu.core.model;

/**
 * How two cards on one node reach each other, best first. The names follow {@code nvidia-smi topo -m}: NVLink
 * ({@code NV#}), one PCIe switch ({@code PIX}/{@code PXB}), one host bridge ({@code PHB}), one NUMA node
 * ({@code NODE}) and across sockets ({@code SYS}).
 */
public enum LinkKind {
    NVLINK,
    PCIE_SWITCH,
    HOST_BRIDGE,
    NUMA_NODE,
    CROSS_SOCKET
}
