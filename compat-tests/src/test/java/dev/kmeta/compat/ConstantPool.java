package dev.kmeta.compat;

import java.io.DataInputStream;
import java.io.IOException;

/**
 * A class file's constant pool as the compat checks read it (JVMS 4.4): per index its tag, its UTF-8 text (tag 1),
 * and the indexes it links to (classes, strings, member references, name-and-types, method handles...). Read from a
 * stream positioned at the start of the class file; the stream is left after the pool.
 *
 * @param tags  the tag of each entry (0 for the unused ones: index 0 and the slot after a long or double)
 * @param utf   the text of each UTF-8 entry, else null
 * @param links the indexes each entry links to, else null
 */
record ConstantPool(int[] tags, String[] utf, int[][] links) {
    /**
     * @param from what is read, for messages
     * @throws IOException if it is not a class file or has a tag this reader does not know
     */
    static ConstantPool read(DataInputStream in, String from) throws IOException {
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException(from + ": not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        int[] tags = new int[count];
        String[] utf = new String[count];
        int[][] links = new int[count][];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            tags[i] = tag;
            switch (tag) {
                case 1 -> utf[i] = in.readUTF();
                case 3, 4 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++;
                }
                case 7, 8, 16, 19, 20 -> links[i] = new int[] {in.readUnsignedShort()};
                case 9, 10, 11, 12, 17, 18 -> links[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
                case 15 -> links[i] = new int[] {in.readUnsignedByte(), in.readUnsignedShort()};
                default -> throw new IOException(from + ": constant pool tag " + tag);
            }
        }
        return new ConstantPool(tags, utf, links);
    }

    /** The number of entries (as the class file counts them: one more than the last index). */
    int count() {
        return tags.length;
    }
}
