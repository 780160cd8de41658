import asyncio


async def main():
    n = 100000
    q = asyncio.Queue(256)

    async def task(i):
        await q.put(i)

    tasks = [asyncio.create_task(task(i)) for i in range(n)]
    total = 0
    for _ in range(n):
        total += await q.get()
    await asyncio.gather(*tasks)
    print(total)


asyncio.run(main())
