package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.imageio.ImageIO;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium driven by Selenium, as {@link RmWebUiBrowserIT} drives it, with its
 * screenshots saved under target/browser-artifacts/.
 */
final class HeadlessChromium implements AutoCloseable {
  private static final String CHROMIUM =
      System.getProperty("aryl.it.chromium", "/usr/bin/chromium");
  private static final String CHROMEDRIVER =
      System.getProperty("aryl.it.chromedriver", "/usr/bin/chromedriver");

  /** Selenium warns that it has no DevTools (CDP) bindings for this Chromium; unused here. */
  private static final Logger CDP_LOG =
      Logger.getLogger("org.openqa.selenium.devtools.CdpVersionFinder");

  final ChromeDriver driver;
  private final Path artifacts;

  /**
   * Fails, never skips, without a browser: a build without one must not pass a browser test unseen.
   */
  HeadlessChromium(Path profile) throws IOException {
    List<String> missing = new ArrayList<>();
    for (String path : List.of(CHROMIUM, CHROMEDRIVER)) {
      if (!new File(path).canExecute()) {
        missing.add(path);
      }
    }
    if (!missing.isEmpty()) {
      throw new AssertionError(
          "this test drives headless Chromium, but "
              + String.join(" and ", missing)
              + (missing.size() == 1 ? " is" : " are")
              + " missing. Install Debian's browser and driver with "
              + "`apt-get install -y chromium chromium-driver` (or run .ci/run, which installs them), or point "
              + "-Daryl.it.chromium and -Daryl.it.chromedriver at a matching Chromium and chromedriver.");
    }
    artifacts = Path.of(System.getProperty("basedir", "."), "target", "browser-artifacts");
    Files.createDirectories(artifacts);
    CDP_LOG.setLevel(Level.SEVERE);
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,1000",
        "--user-data-dir=" + Files.createDirectories(profile));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(CHROMEDRIVER))
            .usingAnyFreePort()
            .build();
    driver = new ChromeDriver(service, options);
  }

  /**
   * Saves a PNG of the whole page (the window grown to the page, at most 4000 x 8000) and checks it
   * is one.
   */
  Path screenshot(String name) throws IOException {
    Dimension window = driver.manage().window().getSize();
    Path file = artifacts.resolve(name);
    try {
      @SuppressWarnings("unchecked")
      List<Long> size =
          (List<Long>)
              ((JavascriptExecutor) driver)
                  .executeScript(
                      "var e = document.documentElement, b = document.body;"
                          + "return [Math.max(e.scrollWidth, b.scrollWidth), Math.max(e.scrollHeight, b.scrollHeight)];");
      driver
          .manage()
          .window()
          .setSize(
              new Dimension(
                  (int) Math.min(Math.max(size.get(0) + 50, window.getWidth()), 4000),
                  (int) Math.min(Math.max(size.get(1) + 150, window.getHeight()), 8000)));
      Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
    } finally {
      driver.manage().window().setSize(window);
    }
    byte[] bytes = Files.readAllBytes(file);
    assertThat(Arrays.copyOf(bytes, 8))
        .as("PNG signature of %s", file)
        .isEqualTo(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
    BufferedImage image = ImageIO.read(new ByteArrayInputStream(bytes));
    assertThat(image).as("%s decodes as an image", file).isNotNull();
    assertThat(image.getWidth()).as("width of %s", file).isGreaterThan(800);
    return file;
  }

  @Override
  public void close() {
    driver.quit();
  }
}
