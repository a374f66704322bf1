package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.SchedulerStatus;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The ResourceManager web UI of a running Aryl cluster, as a person sees it in a browser: headless
 * Chromium (Debian's chromium and chromium-driver, which .ci/run installs) opens the Capacity
 * Scheduler page and Aryl's REST resource and saves what it saw as PNG screenshots under
 * target/browser-artifacts/. One cluster from the conf-templates files: 2 inference nodes, 2
 * training nodes (8 GPUs each), one unlabelled node, and an elastic job on training.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName(
    "RM web UI in headless Chromium: the scheduler page and Aryl's REST resource show partitions, queues and the job")
class RmWebUiBrowserIT {
  /**
   * Debian's paths; override with -Daryl.it.chromium=... and -Daryl.it.chromedriver=... elsewhere.
   */
  private static final String CHROMIUM =
      System.getProperty("aryl.it.chromium", "/usr/bin/chromium");

  private static final String CHROMEDRIVER =
      System.getProperty("aryl.it.chromedriver", "/usr/bin/chromedriver");
  private static final Duration WAIT = Duration.ofSeconds(10);

  /**
   * Selenium warns that it has no DevTools (CDP) bindings for this Chromium; these tests do not use
   * CDP. Held here so the level is not lost with a collected logger.
   */
  private static final Logger CDP_LOG =
      Logger.getLogger("org.openqa.selenium.devtools.CdpVersionFinder");

  @TempDir static Path dir;

  private ArylMiniCluster cluster;
  private TestJob job;
  private ChromeDriver browser;
  private Path artifacts;

  @BeforeAll
  void start() throws Exception {
    requireBrowser();
    artifacts = Path.of(System.getProperty("basedir", "."), "target", "browser-artifacts");
    Files.createDirectories(artifacts);

    cluster = ArylMiniCluster.start("browser", ArylMiniCluster.testConf(dir.toFile()), 2, 2);
    // An hour's predicted work: growing to 4 stays worth a re-scale however late a round sees the
    // 4th ask. (At a
    // minute's, a job held at 3 for most of that minute has too little left to gain from a 4th
    // worker.)
    job = TestJob.submit(cluster, "elastic", "training", TestJob.shape(1, 4, 1, 3600), 1, true);
    job.askWorkers(4);
    // The pages are read once: wait until there is something to see (4 workers of 1 GPU on
    // training).
    cluster.awaitShowingStatus("the elastic job holds 4 workers", () -> job.workers() == 4);

    CDP_LOG.setLevel(Level.SEVERE);
    ChromeOptions options = new ChromeOptions();
    // An explicit binary and driver: Selenium Manager then never looks for (or downloads) a
    // browser.
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
        "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium-profile")));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(CHROMEDRIVER))
            .usingAnyFreePort()
            .build();
    browser = new ChromeDriver(service, options);
  }

  /** Fails, never skips: a build without a browser must not pass this test unseen. */
  private static void requireBrowser() {
    List<String> missing = new ArrayList<>();
    for (String path : List.of(CHROMIUM, CHROMEDRIVER)) {
      if (!new File(path).canExecute()) {
        missing.add(path);
      }
    }
    if (!missing.isEmpty()) {
      throw new AssertionError(
          "RmWebUiBrowserIT drives headless Chromium, but "
              + String.join(" and ", missing)
              + (missing.size() == 1 ? " is" : " are")
              + " missing. Install Debian's browser and driver with "
              + "`apt-get install -y chromium chromium-driver` (or run .ci/run, which installs them), or point "
              + "-Daryl.it.chromium and -Daryl.it.chromedriver at a matching Chromium and chromedriver.");
    }
  }

  @AfterAll
  void stop() throws Exception {
    try {
      if (browser != null) {
        browser.quit();
      }
    } finally {
      if (job != null) {
        job.close();
      }
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  @Test
  @DisplayName(
      "/cluster/scheduler shows the inference and training partitions, and each partition's queue once expanded")
  void schedulerPage() throws Exception {
    browser.get(cluster.webAddress() + "/cluster/scheduler");
    WebDriverWait wait = new WebDriverWait(browser, WAIT);
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("cs")));

    for (String partition : List.of("inference", "training")) {
      // The queue tree is a jstree: partitions at the top, closed; expand partition, then root,
      // then the queue.
      WebElement partitionNode =
          browser.findElement(
              By.xpath(
                  "//div[@id='cs']/ul/li[a/span[contains(@class,'q')][starts-with(normalize-space(.),'Partition: "
                      + partition
                      + " ')]]"));
      assertThat(partitionNode.findElement(By.xpath("./a/span[contains(@class,'q')]")).getText())
          .as("partition %s heading", partition)
          .isEqualTo("Partition: " + partition + " <memory:32768, vCores:32, yarn.io/gpu: 16>");
      WebElement root = expand(wait, partitionNode, "root");
      WebElement queue = expand(wait, root, "root." + partition);
      WebElement status = open(wait, queue);
      assertThat(status.getText())
          .as("queue status table of root.%s", partition)
          .contains("'root." + partition + "' Queue Status for Partition '" + partition + "'")
          .contains("Effective Capacity:");
    }

    // The job's 4 one-GPU workers: a quarter of the training partition's 16 GPUs, in the training
    // queue.
    WebElement training =
        browser.findElement(
            By.xpath(
                "//div[@id='cs']/ul/li[a/span[contains(@class,'q')][starts-with(normalize-space(.),'Partition: training ')]]"));
    assertThat(training.findElement(By.xpath("./span[contains(@class,'qstats')]")).getText())
        .isEqualTo("25.0% used");
    WebElement trainingQueue =
        training.findElement(By.xpath(".//li[a/span[contains(@class,'q')][.='root.training']]"));
    assertThat(trainingQueue.findElement(By.cssSelector("table.info")).getText())
        .as("root.training in partition training")
        .contains("Used Capacity: <memory:512, vCores:4, yarn.io/gpu: 4> (25.0%)");
    // And the application itself in the page's application table.
    assertThat(browser.findElement(By.id("apps")).getText())
        .contains(job.id().toString(), "root.training");

    Path png = screenshot("scheduler.png");
    assertPng(png);
  }

  @Test
  @DisplayName(
      "/ws/v1/cluster/aryl in the browser shows Aryl's nodes and the elastic job with targetWorkers 4")
  void arylResource() throws Exception {
    String id = job.id().toString();
    AtomicReference<SchedulerStatus> status = new AtomicReference<>();
    // Aryl publishes its plan every round: reload until the job's entry is there with its target
    // reached.
    ArylMiniCluster.await(
        "the browser shows " + id + " with targetWorkers 4",
        WAIT,
        () -> {
          browser.get(cluster.webAddress() + ArylPaths.STATUS);
          try {
            SchedulerStatus s =
                ArylJson.readStatus(browser.findElement(By.tagName("pre")).getText());
            status.set(s);
            ApplicationStatus app = s.application(id);
            return app != null && app.targetWorkers() == 4;
          } catch (IOException | RuntimeException e) {
            return false;
          }
        });
    SchedulerStatus s = status.get();
    assertThat(s.enabled()).isTrue();

    List<String> labels = s.nodes().stream().map(NodeStatus::label).toList();
    assertThat(labels).as("node labels in %s", s).hasSize(5);
    assertThat(labels).filteredOn("inference"::equals).hasSize(2);
    assertThat(labels).filteredOn("training"::equals).hasSize(2);
    assertThat(s.nodes().stream().mapToInt(NodeStatus::gpus).sum())
        .as("GPUs over all nodes")
        .isEqualTo(40);

    ApplicationStatus app = s.application(id);
    assertThat(app.minWorkers()).isEqualTo(1);
    assertThat(app.maxWorkers()).isEqualTo(4);
    assertThat(app.gpusPerWorker()).isEqualTo(1);
    assertThat(app.targetWorkers()).isEqualTo(4);
    assertThat(app.actualWorkers()).isEqualTo(4);
    int targeted = 0;
    for (Map.Entry<String, Integer> e : app.targetByNode().entrySet()) {
      assertThat(s.node(e.getKey()).label()).as("label of %s", e.getKey()).isEqualTo("training");
      targeted += e.getValue();
    }
    assertThat(targeted).as("targetByNode of %s", app).isEqualTo(4);

    // Chromium's JSON viewer: tick its Pretty-print box (in a shadow root) so the screenshot is
    // readable.
    WebElement prettyPrint =
        browser
            .findElement(By.cssSelector(".json-formatter-container"))
            .getShadowRoot()
            .findElement(By.cssSelector("input[type=checkbox]"));
    prettyPrint.click();
    assertThat(prettyPrint.isSelected()).as("Pretty-print ticked").isTrue();
    Path png = screenshot("aryl.png");
    assertPng(png);
  }

  /**
   * Opens the closed tree node {@code parent} and returns its child node whose queue name is {@code
   * child}.
   */
  private WebElement expand(WebDriverWait wait, WebElement parent, String child) {
    WebElement node =
        parent.findElement(By.xpath("./ul/li[a/span[contains(@class,'q')][.='" + child + "']]"));
    open(wait, parent);
    wait.until(ExpectedConditions.visibilityOf(node));
    return node;
  }

  /**
   * Opens a tree node by its toggle (not its label, which would filter the application table) and
   * returns its list.
   */
  private WebElement open(WebDriverWait wait, WebElement node) {
    WebElement children = node.findElement(By.xpath("./ul"));
    if (!node.getAttribute("class").contains("jstree-open")) {
      node.findElement(By.xpath("./ins")).click();
    }
    wait.until(ExpectedConditions.visibilityOf(children));
    // jstree slides the list open (jQuery animation): until it ends only its first rows are visible
    // text.
    wait.until(
        d ->
            (Boolean)
                ((JavascriptExecutor) d)
                    .executeScript("return !window.jQuery || jQuery(':animated').length === 0;"));
    return children;
  }

  /**
   * Saves a PNG of the whole page (the window is grown to the page's size, at most 4000 x 8000,
   * meanwhile).
   */
  private Path screenshot(String name) throws IOException {
    Dimension window = browser.manage().window().getSize();
    try {
      @SuppressWarnings("unchecked")
      List<Long> size =
          (List<Long>)
              ((JavascriptExecutor) browser)
                  .executeScript(
                      "var e = document.documentElement, b = document.body;"
                          + "return [Math.max(e.scrollWidth, b.scrollWidth), Math.max(e.scrollHeight, b.scrollHeight)];");
      // The outer window is a little larger than its viewport: leave room so no scroll bar is
      // drawn.
      browser
          .manage()
          .window()
          .setSize(
              new Dimension(
                  (int) Math.min(Math.max(size.get(0) + 50, window.getWidth()), 4000),
                  (int) Math.min(Math.max(size.get(1) + 150, window.getHeight()), 8000)));
      Path file = artifacts.resolve(name);
      Files.write(file, browser.getScreenshotAs(OutputType.BYTES));
      return file;
    } finally {
      browser.manage().window().setSize(window);
    }
  }

  private static void assertPng(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    assertThat(bytes.length).as("size of %s", file).isGreaterThan(1000);
    assertThat(Arrays.copyOf(bytes, 8))
        .as("PNG signature of %s", file)
        .isEqualTo(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
    BufferedImage image = ImageIO.read(new ByteArrayInputStream(bytes));
    assertThat(image).as("%s decodes as an image", file).isNotNull();
    assertThat(image.getWidth()).as("width of %s", file).isGreaterThan(800);
    assertThat(image.getHeight()).as("height of %s", file).isGreaterThan(400);
  }
}
