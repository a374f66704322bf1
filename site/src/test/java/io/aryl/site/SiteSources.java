package io.aryl.site;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Where the site's sources and the repository's other modules are, for the tests. */
final class SiteSources {
  private SiteSources() {}

  /**
   * The repository root: set by surefire (aryl.root), else the parent of the working directory (the
   * module).
   */
  static Path root() {
    String p = System.getProperty("aryl.root");
    Path root = (p == null ? Paths.get("..") : Paths.get(p)).toAbsolutePath().normalize();
    if (!Files.isDirectory(root.resolve("site/src/site"))) {
      throw new IllegalStateException("not the repository root (no site/src/site): " + root);
    }
    return root;
  }

  static Path module() {
    return root().resolve("site");
  }

  static Path markdownDir() {
    return module().resolve("src/site/markdown");
  }
}
