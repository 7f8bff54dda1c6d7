import ij.gui.PolygonRoi;
import ij.gui.Roi;
import ij.io.RoiDecoder;
import ij.io.RoiEncoder;
import java.awt.Point;
import java.awt.Polygon;
import java.awt.Rectangle;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.InputStream;
import java.util.Arrays;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Test helper: reads a zip of ImageJ .roi files the way ImageJ's RoiManager does (ZipInputStream,
 * RoiDecoder per entry) and prints one JSON object per entry on its own line. Used by the exporter
 * interop tests; run with `java -Djava.awt.headless=true -cp /usr/share/java/ij.jar DecodeRois.java <zip>`.
 *
 * Fields: entry (zip entry name), name (roi.getName() decoded with the entry name, as RoiManager
 * does), header2Name (decoded without a name, so only the name stored in the file), version, type
 * (Roi.getType()), typeName, bounds [x, y, w, h], x, y (polygon vertices), pixels
 * (getContainedPoints().length), px, py (the contained pixels), length (getLength()), and
 * reencodeEqual (RoiEncoder.saveAsByteArray of the decoded ROI gives back the same bytes).
 */
public class DecodeRois {
  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: DecodeRois <zip>");
      System.exit(2);
    }
    StringBuilder out = new StringBuilder();
    try (ZipInputStream zin = new ZipInputStream(new FileInputStream(args[0]))) {
      ZipEntry entry;
      while ((entry = zin.getNextEntry()) != null) {
        byte[] bytes = readAll(zin);
        String entryName = entry.getName();
        Roi roi = new RoiDecoder(bytes, entryName).getRoi();
        Roi bare = new RoiDecoder(bytes, null).getRoi();
        out.append(describe(entryName, bytes, roi, bare)).append('\n');
      }
    }
    System.out.print(out);
    System.out.flush();
  }

  static byte[] readAll(InputStream in) throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    byte[] chunk = new byte[8192];
    int read;
    while ((read = in.read(chunk)) > 0) buffer.write(chunk, 0, read);
    return buffer.toByteArray();
  }

  static String describe(String entryName, byte[] bytes, Roi roi, Roi bare) {
    StringBuilder s = new StringBuilder("{");
    s.append("\"entry\":").append(quote(entryName));
    s.append(",\"name\":").append(quote(roi.getName()));
    s.append(",\"header2Name\":").append(quote(bare.getName()));
    s.append(",\"version\":").append(((bytes[4] & 255) << 8) | (bytes[5] & 255));
    s.append(",\"type\":").append(roi.getType());
    s.append(",\"typeName\":").append(quote(roi.getTypeAsString()));
    Rectangle r = roi.getBounds();
    s.append(",\"bounds\":[").append(r.x).append(',').append(r.y).append(',').append(r.width).append(',').append(r.height).append(']');
    if (roi instanceof PolygonRoi) {
      Polygon p = roi.getPolygon();
      s.append(",\"x\":").append(ints(p.xpoints, p.npoints));
      s.append(",\"y\":").append(ints(p.ypoints, p.npoints));
    }
    Point[] points = roi.getContainedPoints();
    int[] px = new int[points.length];
    int[] py = new int[points.length];
    for (int i = 0; i < points.length; i++) {
      px[i] = points[i].x;
      py[i] = points[i].y;
    }
    s.append(",\"pixels\":").append(points.length);
    s.append(",\"px\":").append(ints(px, px.length));
    s.append(",\"py\":").append(ints(py, py.length));
    s.append(",\"length\":").append(Double.toString(roi.getLength()));
    s.append(",\"reencodeEqual\":").append(Arrays.equals(bytes, RoiEncoder.saveAsByteArray(roi)));
    return s.append('}').toString();
  }

  static String ints(int[] values, int n) {
    StringBuilder s = new StringBuilder("[");
    for (int i = 0; i < n; i++) {
      if (i > 0) s.append(',');
      s.append(values[i]);
    }
    return s.append(']').toString();
  }

  static String quote(String value) {
    if (value == null) return "null";
    StringBuilder s = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      if (c == '"' || c == '\\') s.append('\\').append(c);
      else if (c < 0x20 || c > 0x7e) s.append(String.format("\\u%04x", (int) c));
      else s.append(c);
    }
    return s.append('"').toString();
  }
}
