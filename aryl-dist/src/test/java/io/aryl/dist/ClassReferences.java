package io.aryl.dist;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The classes one class file refers to in its constant pool: every class it names (to call, create,
 * cast to, catch or extend) and every class in the descriptors of the fields and methods it uses.
 * These must all be there at run time for the class's code to run; types named only in annotations
 * are not, since a missing annotation class is ignored.
 */
final class ClassReferences {

  private static final Pattern OBJECT_TYPE = Pattern.compile("L([^;<]+)[;<]");

  private ClassReferences() {}

  /** Binary names with slashes, e.g. {@code org/apache/hadoop/conf/Configuration}. */
  static Set<String> of(byte[] classFile) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
    if (in.readInt() != 0xCAFEBABE) {
      throw new IOException("not a class file");
    }
    in.readUnsignedShort();
    in.readUnsignedShort();
    int count = in.readUnsignedShort();
    String[] utf8 = new String[count];
    int[] classNames = new int[count];
    int[] descriptors = new int[count];
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> utf8[i] = in.readUTF();
        case 7 -> classNames[i] = in.readUnsignedShort();
        case 12 -> {
          in.readUnsignedShort();
          descriptors[i] = in.readUnsignedShort();
        }
        case 3, 4, 9, 10, 11, 17, 18 -> in.readInt();
        case 5, 6 -> {
          in.readLong();
          i++;
        }
        case 8, 16, 19, 20 -> in.readUnsignedShort();
        case 15 -> {
          in.readUnsignedByte();
          in.readUnsignedShort();
        }
        default -> throw new IOException("unknown constant pool tag " + tag + " at " + i);
      }
    }
    Set<String> referenced = new TreeSet<>();
    for (int i = 1; i < count; i++) {
      if (classNames[i] != 0) {
        String name = utf8[classNames[i]];
        if (name.startsWith("[")) {
          addObjectTypes(name, referenced);
        } else {
          referenced.add(name);
        }
      }
      if (descriptors[i] != 0) {
        addObjectTypes(utf8[descriptors[i]], referenced);
      }
    }
    return referenced;
  }

  private static void addObjectTypes(String descriptor, Set<String> into) {
    Matcher type = OBJECT_TYPE.matcher(descriptor);
    while (type.find()) {
      into.add(type.group(1));
    }
  }
}
