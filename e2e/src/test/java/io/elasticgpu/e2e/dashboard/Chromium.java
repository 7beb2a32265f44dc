package io.elasticgpu.e2e.dashboard;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's {@code chromium}, headless, driven through Debian's {@code chromedriver} (never a downloaded browser:
 * Selenium
 * Manager is bypassed by naming both programs). {@code -Degpu.chromium.required=true} (CI) turns a missing browser from
 * a skip into a failure; {@code e2e/bin/install-chromium} installs both.
 */
final class Chromium {

    static final Path BROWSER = Path.of(System.getProperty("egpu.chromium", "/usr/bin/chromium"));
    static final Path DRIVER = Path.of(System.getProperty("egpu.chromedriver", "/usr/bin/chromedriver"));

    private Chromium() {}

    /**
     * A new headless browser, 1400×1000, whose profile is the empty directory {@code profile} (a test's
     * {@code @TempDir}, so that the profile goes with the test).
     */
    static ChromeDriver start(Path profile) {
        requireInstalled();
        ChromeOptions options = new ChromeOptions()
                .setBinary(BROWSER.toFile())
                .addArguments(
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-dev-shm-usage",
                        "--window-size=1400,1000",
                        // This machine's network is closed: without these, chromium keeps dialling Google's services.
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }

    private static void requireInstalled() {
        boolean installed = Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
        String missing = "needs %s and %s (Debian's chromium and chromium-driver): run e2e/bin/install-chromium"
                .formatted(BROWSER, DRIVER);
        if (Boolean.getBoolean("egpu.chromium.required") && !installed) {
            fail(missing);
        }
        assumeTrue(installed, missing);
    }
}
