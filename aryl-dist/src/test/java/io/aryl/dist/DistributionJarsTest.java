package io.aryl.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.dist.Distribution.ListedJar;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar-clash check: what the tarball bundles beside a Hadoop 3.5.0 install neither duplicates
 * what Hadoop ships (a second servlet API, Jackson or Curator on the ResourceManager's class path
 * breaks it at run time) nor leaves out a class Aryl's code needs. Hadoop's jars are the list
 * src/hadoop-jars/pom.xml resolves; each folder is checked as the class path it is used on:
 * Hadoop's jars plus that folder's.
 */
@DisplayName("the tarball's jars beside Hadoop 3.5.0's")
class DistributionJarsTest {

  @TempDir static Path unpacked;
  private static Path top;
  private static List<ListedJar> hadoop;
  private static Map<String, ListedJar> hadoopByCoordinates;

  @BeforeAll
  static void unpack() throws Exception {
    top = Distribution.unpack(unpacked);
    hadoop = Distribution.hadoopJars();
    hadoopByCoordinates = new HashMap<>();
    for (ListedJar jar : hadoop) {
      hadoopByCoordinates.put(jar.coordinates(), jar);
    }
  }

  @Test
  @DisplayName("every folder of jars is there and holds jars")
  void foldersHoldJars() {
    for (String folder : Distribution.JAR_FOLDERS) {
      assertThat(Distribution.jarsIn(top.resolve(folder))).as(folder).isNotEmpty();
    }
  }

  @Test
  @DisplayName("no bundled jar is, or carries, an artifact Hadoop ships (by groupId:artifactId)")
  void noBundledArtifactIsHadoops() throws IOException {
    Map<String, ListedJar> bundledByFileName = new HashMap<>();
    for (ListedJar artifact : Distribution.bundledArtifacts()) {
      bundledByFileName.put(artifact.file().getFileName().toString(), artifact);
    }
    List<String> clashes = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    for (String folder : Distribution.JAR_FOLDERS) {
      for (Path jar : Distribution.jarsIn(top.resolve(folder))) {
        String name = folder + "/" + jar.getFileName();
        Set<String> carried = new TreeSet<>(mavenCoordinatesInside(jar));
        ListedJar artifact = bundledByFileName.get(jar.getFileName().toString());
        if (artifact == null) {
          unknown.add(name);
        } else {
          carried.add(artifact.coordinates());
        }
        for (String coordinates : carried) {
          ListedJar shipped = hadoopByCoordinates.get(coordinates);
          if (shipped != null) {
            clashes.add(
                name
                    + " bundles "
                    + coordinates
                    + ", which Hadoop 3.5.0 ships ("
                    + shipped.version()
                    + ")");
          }
        }
      }
    }
    assertThat(unknown).as("jars that are no artifact aryl-dist's pom names").isEmpty();
    assertThat(clashes).as("bundled artifacts that Hadoop ships").isEmpty();
  }

  @Test
  @DisplayName("no bundled class is also in a Hadoop jar (shaded copies included)")
  void noBundledClassIsHadoops() throws IOException {
    Map<String, String> hadoopClasses = new HashMap<>();
    for (ListedJar jar : hadoop) {
      for (String entry : classEntries(jar.file())) {
        hadoopClasses.putIfAbsent(entry, jar.file().getFileName().toString());
      }
    }
    Map<String, Set<String>> clashes = new TreeMap<>();
    for (String folder : Distribution.JAR_FOLDERS) {
      for (Path jar : Distribution.jarsIn(top.resolve(folder))) {
        for (String entry : classEntries(jar)) {
          String shipped = hadoopClasses.get(entry);
          if (shipped != null) {
            clashes
                .computeIfAbsent(folder + "/" + jar.getFileName(), j -> new TreeSet<>())
                .add(entry + " (also in " + shipped + ")");
          }
        }
      }
    }
    assertThat(clashes).as("bundled classes that Hadoop's jars have too").isEmpty();
  }

  @Test
  @DisplayName("every class Aryl's code refers to is in the JDK, Hadoop's jars or the same folder")
  void everyReferencedClassIsThere() throws IOException {
    Set<String> hadoopClasses = new TreeSet<>();
    for (ListedJar jar : hadoop) {
      hadoopClasses.addAll(classEntries(jar.file()));
    }
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (String folder : Distribution.JAR_FOLDERS) {
      Set<String> available = new TreeSet<>(hadoopClasses);
      for (Path jar : Distribution.jarsIn(top.resolve(folder))) {
        available.addAll(classEntries(jar));
      }
      for (Path jar : Distribution.jarsIn(top.resolve(folder))) {
        try (JarFile file = new JarFile(jar.toFile())) {
          for (JarEntry entry : (Iterable<JarEntry>) file.stream()::iterator) {
            if (!entry.getName().startsWith("io/aryl/") || !entry.getName().endsWith(".class")) {
              continue;
            }
            checked++;
            byte[] bytes;
            try (InputStream in = file.getInputStream(entry)) {
              bytes = in.readAllBytes();
            }
            for (String needed : ClassReferences.of(bytes)) {
              if (!available.contains(needed + ".class") && !inJdk(needed)) {
                missing.add(
                    folder
                        + "/"
                        + jar.getFileName()
                        + ": "
                        + entry.getName().replace(".class", "")
                        + " needs "
                        + needed);
              }
            }
          }
        }
      }
    }
    assertThat(checked).as("Aryl classes checked").isGreaterThan(100);
    assertThat(missing)
        .as("classes in neither the JDK, Hadoop 3.5.0's jars nor the folder's own jars")
        .isEmpty();
  }

  @Test
  @DisplayName(
      "every entry point loads with Hadoop's jars and its folder's: the jars' Main-Class, the"
          + " scripts' main classes, the classes the templates name")
  void everyEntryPointLoads() throws Exception {
    Map<String, Set<String>> entryPoints = new TreeMap<>();
    Set<String> mains = new TreeSet<>();
    for (String folder : List.of("share/aryl/am", "share/aryl/serve", "share/aryl/tools")) {
      for (Path jar : Distribution.jarsIn(top.resolve(folder))) {
        try (JarFile file = new JarFile(jar.toFile())) {
          String main =
              file.getManifest() == null
                  ? null
                  : file.getManifest().getMainAttributes().getValue("Main-Class");
          if (main != null && main.startsWith("io.aryl.")) {
            entryPoints.computeIfAbsent(folder, f -> new TreeSet<>()).add(main);
            mains.add(main);
          }
        }
      }
    }
    Set<String> scriptMains;
    try (Stream<Path> scripts = Files.list(top.resolve("bin"))) {
      scriptMains = namedClasses(scripts);
    }
    assertThat(scriptMains).as("main classes the scripts in bin/ run").hasSizeGreaterThan(1);
    entryPoints.computeIfAbsent("share/aryl/tools", f -> new TreeSet<>()).addAll(scriptMains);
    mains.addAll(scriptMains);
    Set<String> configured;
    try (Stream<Path> templates = Files.walk(top.resolve("etc/aryl"))) {
      configured = namedClasses(templates.filter(p -> p.toString().endsWith(".xml")));
    }
    assertThat(configured)
        .as("classes the templates configure")
        .contains("io.aryl.yarn.ArylScheduler", "io.aryl.yarn.web.ArylWebServices");
    entryPoints.computeIfAbsent("share/aryl/rm", f -> new TreeSet<>()).addAll(configured);

    List<String> failures = new ArrayList<>();
    for (Map.Entry<String, Set<String>> folder : entryPoints.entrySet()) {
      List<URL> classPath = new ArrayList<>();
      for (Path jar : Distribution.jarsIn(top.resolve(folder.getKey()))) {
        classPath.add(jar.toUri().toURL());
      }
      for (ListedJar jar : hadoop) {
        classPath.add(jar.file().toUri().toURL());
      }
      try (URLClassLoader loader =
          new URLClassLoader(classPath.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
        for (String name : folder.getValue()) {
          try {
            Class<?> loaded = Class.forName(name, false, loader);
            // Resolves every type in the declared signatures.
            int members =
                loaded.getDeclaredMethods().length
                    + loaded.getDeclaredFields().length
                    + loaded.getDeclaredConstructors().length;
            if (members == 0) {
              failures.add(folder.getKey() + ": " + name + " declares nothing");
            }
            if (mains.contains(name)) {
              Method main = loaded.getMethod("main", String[].class);
              if (!Modifier.isStatic(main.getModifiers())) {
                failures.add(folder.getKey() + ": " + name + ".main is not static");
              }
            }
          } catch (ReflectiveOperationException | LinkageError e) {
            failures.add(folder.getKey() + ": " + name + ": " + e);
          }
        }
      }
    }
    assertThat(failures).as("entry points that do not load").isEmpty();
  }

  /** The io.aryl class names a file names, e.g. a script's main class or a template's value. */
  private static Set<String> namedClasses(Stream<Path> files) throws IOException {
    Pattern className = Pattern.compile("\\bio\\.aryl(?:\\.[a-z][a-z0-9]*)+\\.[A-Z][A-Za-z0-9]*");
    Set<String> names = new LinkedHashSet<>();
    try (files) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        if (file.toString().endsWith(".xml")) {
          // Values only: comments may name classes that live in other modules.
          text = String.join("\n", values(text));
        }
        Matcher m = className.matcher(text);
        while (m.find()) {
          names.add(m.group());
        }
      }
    }
    return names;
  }

  private static List<String> values(String xml) {
    List<String> values = new ArrayList<>();
    Matcher value =
        Pattern.compile("<value>(.*?)</value>", Pattern.DOTALL)
            .matcher(xml.replaceAll("(?s)<!--.*?-->", ""));
    while (value.find()) {
      values.add(value.group(1));
    }
    return values;
  }

  private static boolean inJdk(String binaryName) {
    try {
      Class.forName(binaryName.replace('/', '.'), false, ClassLoader.getPlatformClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Class files of a jar, without module descriptors and multi-release variants. */
  private static Set<String> classEntries(Path jar) throws IOException {
    Set<String> entries = new TreeSet<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      Enumeration<JarEntry> all = file.entries();
      while (all.hasMoreElements()) {
        String name = all.nextElement().getName();
        if (name.endsWith(".class")
            && !name.endsWith("module-info.class")
            && !name.startsWith("META-INF/")) {
          entries.add(name);
        }
      }
    }
    return entries;
  }

  /** groupId:artifactId of every META-INF/maven/.../pom.properties inside a jar (shaded ones). */
  private static Set<String> mavenCoordinatesInside(Path jar) throws IOException {
    Set<String> coordinates = new TreeSet<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      Enumeration<JarEntry> all = file.entries();
      while (all.hasMoreElements()) {
        JarEntry entry = all.nextElement();
        if (entry.getName().startsWith("META-INF/maven/")
            && entry.getName().endsWith("/pom.properties")) {
          Properties pom = new Properties();
          try (InputStream in = file.getInputStream(entry)) {
            pom.load(in);
          }
          coordinates.add(pom.getProperty("groupId") + ":" + pom.getProperty("artifactId"));
        }
      }
    }
    return coordinates;
  }
}
