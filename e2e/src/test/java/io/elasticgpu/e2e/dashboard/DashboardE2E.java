package io.elasticgpu.e2e.dashboard;

import static io.elasticgpu.localcluster.nodes.AllocatedPods.setHealthy;
import static io.elasticgpu.localcluster.nodes.AllocatedPods.uuid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.controller.dashboard.ClusterWatch;
import io.elasticgpu.controller.dashboard.ControllerMetrics;
import io.elasticgpu.controller.dashboard.DashboardServer;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.nodes.AllocatedPods;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The controller's dashboard in headless Chromium, against the real kube-apiserver: fake GPU nodes carry the
 * inventories, pods carry allocations as the extender writes them, and the page is read and clicked as a person would.
 * Leaves a screenshot in {@code e2e/target/artifacts/dashboard.png}.
 */
@ExtendWith(ControlPlaneExtension.class)
class DashboardE2E {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path ARTIFACTS = Path.of(System.getProperty("egpu.e2e.dir", "."), "target", "artifacts");

    @Test
    void everyCardIsDrawnUnhealthyOnesMarkedAClickedCardListsItsPodsAndThePageFollowsTheCluster(
            TestCluster cluster, @TempDir Path browserProfile) throws IOException {
        List<String> nodes = cluster.createGpuNodes(List.of(
                GpuNodeSpec.of("a100", 8, "NVIDIA A100-SXM4-80GB", 81_920).withNvlinkIslands(4, 12),
                GpuNodeSpec.of("g2", 2, "G2", 15_360)));
        String a100 = nodes.get(0);
        String g2 = nodes.get(1);
        create(cluster, "train", a100, List.of(whole(a100, 0), whole(a100, 1)));
        create(cluster, "infer", a100, List.of(new Share(2, uuid(a100, 2), 300, 20_480)));
        create(cluster, "notebook", g2, List.of(new Share(0, uuid(g2, 0), 500, 4_096)));
        setHealthy(cluster.client(), g2, 1, false);

        try (ClusterWatch watch = ClusterWatch.start(cluster.client());
                DashboardServer server = DashboardServer.start(
                        new InetSocketAddress("127.0.0.1", 0),
                        watch,
                        watch::synced,
                        new ControllerMetrics(watch, () -> false, () -> 0))) {
            ChromeDriver browser = Chromium.start(browserProfile);
            try {
                browser.get("http://127.0.0.1:%d/ui/?refresh=1".formatted(server.port()));
                await().atMost(WAIT)
                        .untilAsserted(() -> assertThat(tiles(browser, cluster)).hasSize(10));

                Page page = new Page(browser);
                assertThat(page.card(a100, 0, "data-fill")).isEqualTo("1.000");
                assertThat(page.card(a100, 2, "data-fill")).isEqualTo("0.300"); // compute 30 % > memory 25 %
                assertThat(page.card(a100, 3, "data-fill")).isEqualTo("0.000");
                assertThat(page.card(a100, 3, "innerText")).contains("NVL-A"); // the NVLink island of cards 0-3
                assertThat(page.card(a100, 4, "innerText")).contains("NVL-B");
                assertThat(page.card(g2, 1, "class")).contains("unhealthy");
                assertThat(page.card(g2, 1, "aria-label")).contains("unhealthy");
                assertThat(page.text("[data-total='Unhealthy cards'] .value")).isNotEqualTo("0");
                // Free bf16 TFLOPS: an A100 (312) with 30 % held has 218.40 free; G2, the trace's undisclosed model,
                // is no model of the table: no figure and why, not 0.
                assertThat(page.card(a100, 2, "data-free-tflops")).isEqualTo("218.4");
                assertThat(page.card(a100, 0, "data-free-tflops")).isEqualTo("0");
                assertThat(page.card(g2, 0, "data-free-tflops")).isEqualTo("unknown");
                assertThat(page.card(g2, 0, "innerText")).contains("unknown model");
                // The total covers every node of the control plane (other tests' too): the G2's healthy card is one of
                // the cards of unknown models it leaves out.
                assertThat(page.text("[data-total='Free compute'] .value"))
                        .contains("bf16 TFLOPS free")
                        .containsPattern("\\d+ cards?: unknown model");

                page.click(a100, 2);
                await().atMost(WAIT).until(() -> !page.text("#details h2").isEmpty());
                assertThat(page.text("#details")).contains(a100 + " · GPU 2", uuid(a100, 2), "20 GiB of 80 GiB");
                assertThat(page.text("#details tr[data-pod='%s/infer']".formatted(cluster.namespace())))
                        .contains("main", "20 GiB", "30 %", "allocated");
                String drawn = page.text("#status");
                await().atMost(WAIT).until(() -> !page.text("#status").equals(drawn)); // redrawn since the click
                assertThat(page.focusedCard())
                        .as("keyboard focus kept across redraws")
                        .isEqualTo(a100 + "/2");
                Files.createDirectories(ARTIFACTS);
                Files.write(ARTIFACTS.resolve("dashboard.png"), browser.getScreenshotAs(OutputType.BYTES));

                // Live: the page follows new pods, gone pods and health without a reload.
                create(cluster, "late", a100, List.of(new Share(3, uuid(a100, 3), 500, 40_960)));
                cluster.client()
                        .pods()
                        .inNamespace(cluster.namespace())
                        .withName("infer")
                        .withGracePeriod(0)
                        .delete();
                setHealthy(cluster.client(), g2, 1, true);
                await().atMost(WAIT).untilAsserted(() -> {
                    assertThat(page.card(a100, 3, "data-holders")).isEqualTo("1");
                    assertThat(page.card(a100, 3, "data-fill")).isEqualTo("0.500");
                    assertThat(page.card(g2, 1, "data-healthy")).isEqualTo("true");
                    assertThat(page.text("#details")).contains("No pod holds this card.");
                });
                assertThat(page.text("#status")).startsWith("updated");
            } finally {
                browser.quit();
            }
        }
    }

    private static Share whole(String node, int card) {
        return new Share(card, uuid(node, card), 1000, 81_920);
    }

    private static void create(TestCluster cluster, String name, String node, List<Share> shares) {
        AllocatedPods.create(cluster.client(), cluster.namespace(), name, node, Map.of("main", shares), null);
    }

    private static List<WebElement> tiles(ChromeDriver browser, TestCluster cluster) {
        return browser.findElements(By.cssSelector("button.card[data-node^='%s-']".formatted(cluster.namespace())));
    }

    /**
     * Reads the page in one script call each, because it redraws every second and an element found by one WebDriver
     * call may be gone by the next.
     */
    private record Page(ChromeDriver browser) {

        /** An attribute of a card's tile, or its {@code innerText}; null when the tile is not drawn. */
        String card(String node, int card, String attribute) {
            return (String) browser.executeScript("""
                    const t = \
                    document.querySelector(`button.card[data-node="${arguments[0]}"][data-card="${arguments[1]}"]`);
                    return t === null ? null : arguments[2] === "innerText" ? t.innerText : \
                    t.getAttribute(arguments[2]);
                    """, node, card, attribute);
        }

        /** The visible text of the first element {@code selector} finds, empty when none. */
        String text(String selector) {
            return (String) browser.executeScript(
                    "const e = document.querySelector(arguments[0]); return e ? e.innerText : '';", selector);
        }

        /** {@code node/card} of the tile that has the keyboard focus, or null. */
        String focusedCard() {
            return (String) browser.executeScript("""
                    const e = document.activeElement;
                    return e && e.classList.contains("card") ? `${e.dataset.node}/${e.dataset.card}` : null;
                    """);
        }

        /** A real click on the tile, again if a redraw replaced it under the pointer. */
        void click(String node, int card) {
            await().atMost(WAIT).ignoreExceptions().until(() -> {
                browser.findElement(By.cssSelector("button.card[data-node='%s'][data-card='%d']".formatted(node, card)))
                        .click();
                return true;
            });
        }
    }
}
