package io.elasticgpu.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.elasticgpu.api.watch.Informers;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Our informers, against a real HTTP server: one whose first list fails (an API server restarting or loaded, as
 * after a fault in the soak) keeps trying, so the component waiting for it becomes ready once the API answers, where
 * fabric8's default gives up for good; and each object is kept without its managedFields.
 */
class InformersTest {

    private static final String NODES = """
            {"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"5"},
             "items":[{"metadata":{"name":"n1","resourceVersion":"5","managedFields":[{"manager":"kubelet",
               "operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{}}}}]}}]}""";

    private final AtomicInteger lists = new AtomicInteger();
    private HttpServer server;
    private KubernetesClient client;
    private int failFirst;
    private int failCode = 503;

    @BeforeEach
    void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/nodes", this::nodes);
        server.start();
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
                .withRequestRetryBackoffLimit(0)
                .build();
        client = new KubernetesClientBuilder().withConfig(config).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop(0);
    }

    private void nodes(HttpExchange exchange) throws IOException {
        String query = exchange.getRequestURI().getQuery();
        if (query != null && query.contains("watch=true")) {
            exchange.sendResponseHeaders(200, 0); // a watch that sends nothing and ends
            exchange.close();
            return;
        }
        boolean fail = lists.incrementAndGet() <= failFirst;
        byte[] body =
                (fail ? "{\"kind\":\"Status\",\"code\":" + failCode + "}" : NODES).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(fail ? failCode : 200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    @Test
    void anInformerWhoseFirstListsFailSyncsOnceTheApiAnswers() throws Exception {
        failFirst = 2;
        SharedIndexInformer<Node> informer = Informers.ours(client.nodes().runnableInformer(0));
        try {
            informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
            assertThat(lists.get()).as("lists asked").isEqualTo(3);
            assertThat(informer.getStore().list())
                    .extracting(n -> n.getMetadata().getName())
                    .containsExactly("n1");
        } finally {
            informer.close();
        }
    }

    @Test
    void withoutItTheFirstFailedListStopsTheInformerForGood() {
        failFirst = 1;
        SharedIndexInformer<Node> informer = client.nodes().runnableInformer(0);
        try {
            assertThatThrownBy(() -> informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class);
            assertThat(lists.get()).as("lists asked").isEqualTo(1);
        } finally {
            informer.close();
        }
    }

    @Test
    void withoutItTheStoreKeepsEveryManagersFields() throws Exception {
        SharedIndexInformer<Node> informer = client.nodes().runnableInformer(0);
        try {
            informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
            assertThat(informer.getStore().list().getFirst().getMetadata().getManagedFields())
                    .extracting(f -> f.getManager())
                    .containsExactly("kubelet");
        } finally {
            informer.close();
        }
    }

    @Test
    void aRefusalStopsItSoThatTheStartFailsAndSaysSo() {
        failFirst = 5;
        failCode = 403;
        SharedIndexInformer<Node> informer = Informers.ours(client.nodes().runnableInformer(0));
        try {
            assertThatThrownBy(() -> informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("403");
            assertThat(lists.get()).as("lists asked").isEqualTo(1);
        } finally {
            informer.close();
        }
    }
}
