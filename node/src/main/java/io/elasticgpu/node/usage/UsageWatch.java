package io.elasticgpu.node.usage;

import io.elasticgpu.api.v1alpha1.NodeUsage;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a {@link UsageMonitor} every period on a virtual thread of its own and hands each sample to a {@link Sink}. */
public final class UsageWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(UsageWatch.class);

    /** Where samples go: metrics, the node's annotation, events. Called from the watch's thread only. */
    public interface Sink {
        void measured(NodeUsage usage);

        void exceeded(UsageMonitor.Exceeded over);
    }

    private final ScheduledExecutorService loop;

    public UsageWatch(UsageMonitor monitor, Duration every, Sink sink) {
        this.loop = Executors.newSingleThreadScheduledExecutor(
                Thread.ofVirtual().name("egpu-usage").factory());
        loop.scheduleWithFixedDelay(
                () -> {
                    try {
                        UsageMonitor.Sample s = monitor.sample();
                        sink.measured(s.usage());
                        s.exceeded().forEach(sink::exceeded);
                    } catch (RuntimeException e) {
                        LOG.error("measuring GPU usage failed: {}", e.toString());
                    }
                },
                0,
                every.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
