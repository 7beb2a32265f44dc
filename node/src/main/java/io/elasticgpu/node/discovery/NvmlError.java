package io.elasticgpu.node.discovery;

import java.util.Map;

/**
 * NVML's return codes ({@code nvmlReturn_t}): the ones the binding acts on, their names in {@code nvml.h}, and the
 * message an operator reads when a call fails.
 */
final class NvmlError {

    static final int SUCCESS = 0;
    static final int UNINITIALIZED = 1;
    static final int INVALID_ARGUMENT = 2;
    static final int NOT_SUPPORTED = 3;
    static final int NO_PERMISSION = 4;
    static final int NOT_FOUND = 6;
    static final int DRIVER_NOT_LOADED = 9;
    static final int TIMEOUT = 10;
    static final int FUNCTION_NOT_FOUND = 13;
    static final int GPU_IS_LOST = 15;
    static final int UNKNOWN = 999;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(SUCCESS, "NVML_SUCCESS"),
            Map.entry(UNINITIALIZED, "NVML_ERROR_UNINITIALIZED"),
            Map.entry(INVALID_ARGUMENT, "NVML_ERROR_INVALID_ARGUMENT"),
            Map.entry(NOT_SUPPORTED, "NVML_ERROR_NOT_SUPPORTED"),
            Map.entry(NO_PERMISSION, "NVML_ERROR_NO_PERMISSION"),
            Map.entry(NOT_FOUND, "NVML_ERROR_NOT_FOUND"),
            Map.entry(DRIVER_NOT_LOADED, "NVML_ERROR_DRIVER_NOT_LOADED"),
            Map.entry(TIMEOUT, "NVML_ERROR_TIMEOUT"),
            Map.entry(FUNCTION_NOT_FOUND, "NVML_ERROR_FUNCTION_NOT_FOUND"),
            Map.entry(GPU_IS_LOST, "NVML_ERROR_GPU_IS_LOST"),
            Map.entry(UNKNOWN, "NVML_ERROR_UNKNOWN"));

    /** The {@code nvml.h} name of {@code code}, or {@code NVML code <n>} for one this binding does not list. */
    static String name(int code) {
        return NAMES.getOrDefault(code, "NVML code " + code);
    }

    /**
     * E.g. {@code nvmlDeviceGetMemoryInfo for card 1 returned NVML_ERROR_GPU_IS_LOST (15) "GPU is lost"; the card
     * has fallen off the bus: drain the node, then reset the card (nvidia-smi -r) or reboot}.
     *
     * @param subject {@code for card 1}, or empty for calls about the whole node
     * @param text    what {@code nvmlErrorString} says about {@code code}
     */
    static String message(String function, String subject, int code, String text) {
        return "%s%s returned %s (%d) \"%s\"%s"
                .formatted(function, subject.isEmpty() ? "" : " " + subject, name(code), code, text, advice(code));
    }

    private static String advice(int code) {
        return switch (code) {
            case DRIVER_NOT_LOADED -> "; the NVIDIA kernel module is not loaded: check lsmod | grep nvidia and dmesg";
            case NO_PERMISSION -> "; the agent needs read-write access to /dev/nvidiactl and /dev/nvidia*";
            case GPU_IS_LOST ->
                "; the card has fallen off the bus: drain the node, then reset the card (nvidia-smi -r)" + " or reboot";
            case UNINITIALIZED -> "; NVML is not initialised (the backend was closed)";
            default -> "";
        };
    }

    private NvmlError() {}
}
