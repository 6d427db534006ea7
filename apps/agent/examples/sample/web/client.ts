export interface ItemDto {
  sku: string;
  price: number;
}

export class InventoryClient {
  constructor(private readonly baseUrl: string) {}

  async items(): Promise<ItemDto[]> {
    const response = await fetch(`${this.baseUrl}/items`);
    if (!response.ok) {
      throw new Error(`GET /items failed: ${response.status}`);
    }
    return (await response.json()) as ItemDto[];
  }
}

export const total = (items: ItemDto[]): number => items.reduce((sum, item) => sum + item.price, 0);
