package io.aryl.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shell blocks of the deploying page ({@code site/src/site/markdown/deploying.md}) that the
 * real-daemon test runs: each a fenced {@code sh} block right after a comment {@code <!--
 * ArylDaemonsIT: NAME -->}, which the site does not render. The page is the one place those
 * commands are written; the test reads them from it, replaces the page's placeholders (host names,
 * {@code /opt}, {@code <version>}) with this cluster's values, and runs them, so a command changed
 * on the page is the command tested. Which blocks the test ran is recorded: a marked block the test
 * does not run fails it ({@link #notRun()}), so no marked command goes untested.
 */
final class DeployingPage {

  private static final Pattern MARK = Pattern.compile("^<!-- ArylDaemonsIT: ([a-z0-9-]+) -->$");

  private final Path page;
  private final Map<String, String> blocks;
  private final Set<String> run = new LinkedHashSet<>();

  private DeployingPage(Path page, Map<String, String> blocks) {
    this.page = page;
    this.blocks = blocks;
  }

  /** Reads the marked blocks of {@code page}; a mark not followed by a {@code sh} block fails. */
  static DeployingPage read(Path page) throws IOException {
    List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    Map<String, String> blocks = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher mark = MARK.matcher(lines.get(i).strip());
      if (!mark.matches()) {
        continue;
      }
      String name = mark.group(1);
      int fence = i + 1;
      if (fence >= lines.size() || !lines.get(fence).strip().equals("```sh")) {
        throw new IllegalStateException(
            page
                + " line "
                + (i + 1)
                + ": the mark '"
                + name
                + "' is not followed by a ```sh block");
      }
      String indent = lines.get(fence).substring(0, lines.get(fence).indexOf('`'));
      List<String> body = new ArrayList<>();
      int end = fence + 1;
      while (end < lines.size() && !lines.get(end).strip().equals("```")) {
        String line = lines.get(end);
        body.add(line.startsWith(indent) ? line.substring(indent.length()) : line.strip());
        end++;
      }
      if (end == lines.size()) {
        throw new IllegalStateException(
            page + " line " + (fence + 1) + ": the block '" + name + "' is not closed");
      }
      if (blocks.put(name, String.join("\n", body) + "\n") != null) {
        throw new IllegalStateException(page + ": the mark '" + name + "' is there twice");
      }
      i = end;
    }
    return new DeployingPage(page, blocks);
  }

  /**
   * The block {@code name} as a shell script, each {@code placeholder -> value} of {@code values}
   * replaced in order (every placeholder must occur: a placeholder the page no longer has is a page
   * the test no longer matches). Records the block as run.
   */
  String script(String name, Map<String, String> values) {
    String block = blocks.get(name);
    if (block == null) {
      throw new IllegalArgumentException(
          page + " has no block marked '" + name + "'; marked: " + blocks.keySet());
    }
    for (Map.Entry<String, String> v : values.entrySet()) {
      if (!block.contains(v.getKey())) {
        throw new IllegalStateException(
            "the block '" + name + "' of " + page + " has no '" + v.getKey() + "':\n" + block);
      }
      block = block.replace(v.getKey(), v.getValue());
    }
    run.add(name);
    return block;
  }

  /** The marked blocks, in the page's order. */
  Set<String> marked() {
    return blocks.keySet();
  }

  /** The marked blocks no one asked for. */
  List<String> notRun() {
    return blocks.keySet().stream().filter(b -> !run.contains(b)).toList();
  }

  Path path() {
    return page;
  }
}
