export interface ShareRecord {
  id: string;
  organizationId: string;
  segmentationId: string;
  /** 256 bits from the CSPRNG, base64url: the only secret in the public link. */
  token: string;
  viewCount: number;
  lastViewedAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}
