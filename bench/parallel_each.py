import asyncio


async def body(x):
    return x + 1


async def main():
    xs = list(range(10000))
    r = await asyncio.gather(*(body(x) for x in xs))
    print(len(r))


asyncio.run(main())
