package io.elasticgpu.node.discovery;

import static io.elasticgpu.node.discovery.NvmlError.SUCCESS;

import java.lang.invoke.MethodHandle;
import java.util.function.IntFunction;

/**
 * One bound NVML function. Every one returns {@code nvmlReturn_t}; a failed one becomes a {@link DiscoveryException}
 * naming the function, what it was asked about, the code and the text {@code nvmlErrorString} gives for it.
 *
 * @param name      the C name, e.g. {@code nvmlDeviceGetMemoryInfo}
 * @param handle    the downcall
 * @param errorText {@code nvmlErrorString}
 */
record NvmlCall(String name, MethodHandle handle, IntFunction<String> errorText) {

    /** Calls the function and returns its code; arguments are boxed, which costs nothing next to a driver call. */
    int invoke(Object... arguments) {
        try {
            return (int) handle.invokeWithArguments(arguments);
        } catch (Throwable e) {
            throw new DiscoveryException("calling %s failed: %s".formatted(name, e), e);
        }
    }

    /** Throws unless {@code rc} is NVML_SUCCESS; {@code subject} is e.g. {@code for card 1}, or empty. */
    void check(int rc, String subject) {
        if (rc != SUCCESS) {
            throw failure(rc, subject);
        }
    }

    DiscoveryException failure(int rc, String subject) {
        return new DiscoveryException(NvmlError.message(name, subject, rc, errorText.apply(rc)));
    }
}
